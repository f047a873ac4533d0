/// `import`: the writer of `read-while-import` alone, on the same fixture: min(N, 100k) new items (ids above N)
/// in commits of 1,000, each commit timed.
///
/// Its items/s are the reference for the import beside a reader.
package struct ImportWorkload: ItemWorkload {
    package init() {}

    package var name: String { "import" }
    package var summary: String {
        "min(N, 100k) new items imported into a store of N in commits of 1,000, nothing else running: "
            + "read-while-import's writer alone. latency: per commit"
    }
    package var fixture: Fixture? { .items }

    package var capability: StoreCapability { .concurrentReads }

    package func run(on store: any ItemStore, context: WorkloadContext) throws -> WorkloadOutcome {
        guard let store = store as? any ConcurrentReadStore else {
            throw BenchError("workload \(name) needs a store that commits an import; \(type(of: store)) does not")
        }
        let count = ReadWhileImportWorkload.importCount(scale: context.scale)
        try ReadWhileImportWorkload.importItems(
            Int64(context.scale) + 1...Int64(context.scale + count), into: store, context: context)
        return WorkloadOutcome(operations: count, digest: nil)
    }
}

/// `read-while-import`: an interface that reads while a background import writes.
///
/// A store of N items. One thread imports min(N, 100k) new items (ids above N) in commits of 1,000, as fast as it
/// can (the store's own thread, as `import` does alone); another reads existing items by id (the `get` keys)
/// open-loop at `--read-rate` (`OpenLoopReads`). The cell first runs the reader alone, for its reference
/// latencies, then the import with the reader beside it: the timed phase (the commits, each one's latency
/// recorded, then the settle). Reads whose intended start falls between the first commit's start and the last
/// one's end are the reads "during the import".
///
/// The reader makes min(N, 100k) / 10 reads in each phase (10 s at 1,000/s from 100k items up). Its answers touch
/// only ids up to N, which the import never changes, so they do not depend on timing: the answers during the
/// import must equal those alone, and the digest holds them and the store's items after the import.
package struct ReadWhileImportWorkload: ItemWorkload {
    /// Items per commit of the import.
    package static let commitSize = 1_000
    /// A read slower than this missed a frame at 60 Hz.
    package static let slowReadNanoseconds: UInt64 = 16_000_000

    package init() {}

    package var name: String { "read-while-import" }
    package var summary: String {
        "min(N, 100k) new items imported in commits of 1,000 while another thread reads items by id open-loop at "
            + "--read-rate (1,000/s), the reader alone first as its reference. ops/s: items imported beside the "
            + "reader (`import` has them alone); latency: per commit"
    }
    package var fixture: Fixture? { .items }
    /// The writer alone, on the same fixture, whose rate the report sets beside the import's with the reader.
    package static let alone: any Workload = ImportWorkload()

    package var capability: StoreCapability { .concurrentReads }

    /// Items the import adds.
    package static func importCount(scale: Int) -> Int { WorkloadContext.questions(scale: scale) }

    /// Reads in each of the reader's phases.
    package static func readCount(scale: Int) -> Int { max(1, WorkloadContext.questions(scale: scale) / 10) }

    package func run(on store: any ItemStore, context: WorkloadContext) throws -> WorkloadOutcome {
        guard let store = store as? any ConcurrentReadStore else {
            throw BenchError(
                "workload \(name) needs a store that reads on a second thread; \(type(of: store)) does not")
        }
        let scale = context.scale
        let keys = Array(
            GetWorkload.keys(scale: scale, seed: context.seed, distribution: .uniform)
                .prefix(Self.readCount(scale: scale)))
        let count = Self.importCount(scale: scale)
        let reader = try store.makeConcurrentReader()
        let alone: OpenLoopReads
        let during: OpenLoopReads
        let window: Range<UInt64>
        do {
            alone = try OpenLoopReads.run(keys: keys, rate: context.readRate, reader: reader) {}.reads
            (during, window) = try OpenLoopReads.run(keys: keys, rate: context.readRate, reader: reader) {
                context.restartTimeline()
                let start = monotonicNanoseconds()
                try Self.importItems(Int64(scale) + 1...Int64(scale + count), into: store, context: context)
                return start..<monotonicNanoseconds()
            }
        } catch {
            try? reader.close()
            throw error
        }
        try reader.close()
        guard during.answers == alone.answers else {
            let first = during.answers.indices.first { during.answers[$0] != alone.answers[$0] } ?? 0
            throw BenchError(
                "workload \(name): read \(first + 1) (item \(keys[first])) answered differently during the import")
        }
        var digest = Digest()
        for answer in alone.answers { digest.add(answer) }
        return WorkloadOutcome(
            operations: count, digest: digest, alsoDigestsStore: true,
            figures: .readWhileImport(
                ReadWhileImportMetrics(
                    readRate: context.readRate, reads: keys.count, readsAlone: alone.latencySummary(),
                    readsDuringImport: during.latencySummary(startingIn: window),
                    readsInImport: during.intendedStarts.count { window.contains($0) },
                    slowReadsAlone: alone.count(slowerThan: Self.slowReadNanoseconds),
                    slowReadsDuringImport: during.count(slowerThan: Self.slowReadNanoseconds, startingIn: window))))
    }

    /// Imports `ids` in commits of `commitSize`, each commit timed as one operation; `afterCommit` (untimed) is told
    /// how many commits are done after each.
    static func importItems(
        _ ids: ClosedRange<Int64>, into store: any ConcurrentReadStore, context: WorkloadContext,
        afterCommit: (Int) throws -> Void = { _ in }
    ) throws {
        var done = 0
        try ItemBatches.forEachBatch(of: ids, context: context.with(batchSize: commitSize)) { batch in
            try context.stopwatch.measureOperation { try store.insertCommitted(batch) }
            context.progress.advance(by: batch.count)
            done += 1
            try afterCommit(done)
        }
    }
}

/// What `read-while-import` measured besides its timed import.
package struct ReadWhileImportMetrics: Codable, Equatable, Sendable {
    /// Reads per second the reader was asked for.
    package var readRate: Double
    /// Reads in each of the reader's phases.
    package var reads: Int
    /// Read latency from the intended start, reader alone (µs).
    package var readsAlone: LatencySummary?
    /// Read latency from the intended start, for the reads meant to start while the import ran (µs).
    package var readsDuringImport: LatencySummary?
    /// How many reads were meant to start while the import ran.
    package var readsInImport: Int
    /// Reads slower than 16 ms (a missed frame at 60 Hz), reader alone.
    package var slowReadsAlone: Int
    /// Reads slower than 16 ms among those meant to start while the import ran.
    package var slowReadsDuringImport: Int

    package init(
        readRate: Double, reads: Int, readsAlone: LatencySummary?, readsDuringImport: LatencySummary?,
        readsInImport: Int, slowReadsAlone: Int, slowReadsDuringImport: Int
    ) {
        self.readRate = readRate
        self.reads = reads
        self.readsAlone = readsAlone
        self.readsDuringImport = readsDuringImport
        self.readsInImport = readsInImport
        self.slowReadsAlone = slowReadsAlone
        self.slowReadsDuringImport = slowReadsDuringImport
    }
}
