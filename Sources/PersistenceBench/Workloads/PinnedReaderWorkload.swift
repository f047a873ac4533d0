import Foundation

/// `pinned-reader`: an import while a reader holds one read snapshot open, then the snapshot released.
///
/// A store of N items. A reader pins a snapshot (`SnapshotPinningStore.pinSnapshot`: an open SQLite read
/// transaction, a GRDB `DatabaseSnapshot`, an LMDB read transaction never reset, `packed`'s published state and its
/// mappings) and reads 100 seeded ids from 1 to N + the import. Then the store's thread imports min(N, 100k) new items
/// (ids above N) in commits of 1,000, each commit timed, as `import` does; after every commit the sizes of the
/// store's files are read (untimed). The pinned reader then reads its ids again: every answer must be the one it
/// gave before the import (an id above N is absent from its snapshot). It is released, the sizes read; the store
/// settles (its WAL checkpointed and truncated: timed, as every writing workload's), the sizes read again.
///
/// Reported (`PinnedReaderMetrics`): each file's size at the start, its largest during the import, after the
/// release and after the settle, and the total over time. The digest holds the pinned reader's answers, and the
/// store's items after the import.
package struct PinnedReaderWorkload: ItemWorkload {
    package init() {}

    package var name: String { "pinned-reader" }
    package var summary: String {
        "min(N, 100k) items imported in commits of 1,000 while a reader holds one read snapshot open (a transaction "
            + "an app forgot, a long export), the store's file sizes read after every commit; then the snapshot "
            + "released and the store settled. ops/s: items imported; latency: per commit"
    }
    package var fixture: Fixture? { .items }

    package var capability: StoreCapability { .pinnedSnapshots }

    /// The ids the pinned reader reads, before the import and after it.
    static let reads = 100
    /// The most samples of the sizes over time a cell keeps (evenly spaced over the import's commits).
    static let timelineSamples = 200

    package func run(on store: any ItemStore, context: WorkloadContext) throws -> WorkloadOutcome {
        guard let store = store as? any SnapshotPinningStore else {
            throw BenchError(
                "workload \(name) needs a store whose reader can hold a snapshot; \(type(of: store)) has none")
        }
        guard let directory = context.directory else {
            throw BenchError("workload \(name) needs the store's directory")
        }
        let scale = context.scale
        let count = ReadWhileImportWorkload.importCount(scale: scale)
        var rng = SplitMix64(seed: context.seed, stream: .pinnedReads, index: 0)
        let ids = (0..<Self.reads).map { _ in 1 + Int64(rng.below(UInt64(scale + count))) }
        var sizes = PinnedReaderMetrics.Watch(start: try FileSystem.fileSizes(under: directory))
        let pinned = try store.pinSnapshot()
        var closed = false
        defer { if !closed { try? pinned.close() } }
        let before = try ids.map { try pinned.item(id: $0) }
        let commits = (count + ReadWhileImportWorkload.commitSize - 1) / ReadWhileImportWorkload.commitSize
        let every = max(1, commits / Self.timelineSamples)
        let start = monotonicNanoseconds()
        try ReadWhileImportWorkload.importItems(Int64(scale) + 1...Int64(scale + count), into: store, context: context)
        {
            done in
            sizes.look(try FileSystem.fileSizes(under: directory), at: secondsSince(start), keep: done % every == 0)
        }
        let after = try ids.map { try pinned.item(id: $0) }
        if let read = ids.indices.first(where: { before[$0] != after[$0] }) {
            throw BenchError(
                "workload \(name): the pinned reader's read of item \(ids[read]) answered differently after the import "
                    + "than before it: its snapshot moved")
        }
        try pinned.close()
        closed = true
        let released = try FileSystem.fileSizes(under: directory)
        try context.stopwatch.measure { try store.settle() }
        let settled = try FileSystem.fileSizes(under: directory)
        var digest = Digest()
        for answer in before { digest.add(answer: answer) }
        return WorkloadOutcome(
            operations: count, digest: digest, alsoDigestsStore: true,
            figures: .pinnedReader(sizes.metrics(imported: count, released: released, settled: settled)))
    }
}

/// What `pinned-reader` measured besides its timed import: the store's files, by path within its directory.
package struct PinnedReaderMetrics: Codable, Equatable, Sendable {
    package var imported: Int
    /// Each file's size before the snapshot was pinned.
    package var start: [String: Int64]
    /// Each file's largest size after any commit of the import, and the largest total of all files.
    package var largest: [String: Int64]
    package var largestTotal: Int64
    /// Each file's size after the snapshot was released, and after the store settled (its checkpoint).
    package var released: [String: Int64]
    package var settled: [String: Int64]
    /// The total of all files over the import: seconds since its start, and bytes (at most
    /// `PinnedReaderWorkload.timelineSamples` samples, evenly spaced over its commits).
    package var totals: [Sample]

    package struct Sample: Codable, Equatable, Sendable {
        package var seconds: Double
        package var bytes: Int64
    }

    package static func total(_ sizes: [String: Int64]) -> Int64 { sizes.values.reduce(0, +) }

    /// The sizes seen so far.
    struct Watch {
        let start: [String: Int64]
        var largest: [String: Int64]
        var largestTotal: Int64
        var totals: [Sample] = []

        init(start: [String: Int64]) {
            self.start = start
            largest = start
            largestTotal = PinnedReaderMetrics.total(start)
        }

        mutating func look(_ sizes: [String: Int64], at seconds: Double, keep: Bool) {
            largest.merge(sizes, uniquingKeysWith: max)
            let total = PinnedReaderMetrics.total(sizes)
            largestTotal = max(largestTotal, total)
            if keep { totals.append(Sample(seconds: seconds, bytes: total)) }
        }

        func metrics(imported: Int, released: [String: Int64], settled: [String: Int64]) -> PinnedReaderMetrics {
            PinnedReaderMetrics(
                imported: imported, start: start, largest: largest, largestTotal: largestTotal, released: released,
                settled: settled, totals: totals)
        }
    }
}
