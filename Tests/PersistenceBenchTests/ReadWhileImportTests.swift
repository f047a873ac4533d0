import Foundation
import LMDBStore
import PersistenceBench
import Synchronization
import Testing

/// The stores that read on a second thread while their own thread writes.

/// `read-while-import` and the concurrent readers under it, for every store that has one.
@Suite struct ReadWhileImportTests {
    let generator = ItemGenerator(seed: 42)

    func openConcurrentStore(_ name: String, at directory: URL) throws -> any ConcurrentReadStore {
        guard let store = try storeKind(name).open(directory) as? any ConcurrentReadStore else {
            throw BenchError("\(name) reads on no second thread")
        }
        return store
    }

    @Test func everyItemStoreReadsConcurrently() {
        // Every store that answers item questions has a concurrent reader: none is n/a for read-while-import. But
        // `sqlite+async`, which has only what a store of another package can have (`ConcurrentReadStore` is this
        // package's own), and says so in its n/a cells.
        #expect(Set(concurrentReadStoreNames) == Set(itemStoreNames).subtracting(["sqlite+async"]))
    }

    /// The cell's digest is the generator's items for the `get` keys, then every item 1...N + the import.
    @Test(arguments: concurrentReadStoreNames)
    func theCellReadsTheGeneratorsItemsAndLeavesTheImport(store name: String) throws {
        let directory = try TemporaryDirectory()
        let kind = try storeKind(name)
        let scale = 600
        let metrics = try measureCell(
            ReadWhileImportWorkload(), on: kind, in: directory.url, scale: scale, readRate: 4_000)

        let reads = ReadWhileImportWorkload.readCount(scale: scale)
        let imported = ReadWhileImportWorkload.importCount(scale: scale)
        var expected = Digest()
        for id in GetWorkload(distribution: .uniform).keyTrace(scale: scale, seed: 42).compactMap(\.drawn).prefix(reads)
        {
            var answer = Digest()
            answer.add(generator.items(id...id)[0])
            expected.add(answer)
        }
        var stored = Digest()
        for item in generator.items(1...Int64(scale + imported)) { stored.add(item) }
        expected.add(stored)
        #expect(metrics.digest == expected)
        #expect(metrics.phase.operations == imported)
        let live = try #require(metrics.figures?.readWhileImport)
        #expect(live.reads == reads)
        #expect(live.readsAlone?.count == reads)
        #expect(live.readRate == 4_000)
        // Commits of 1,000: one latency per commit.
        #expect(
            metrics.phase.latency?.count == (imported + ReadWhileImportWorkload.commitSize - 1)
                / ReadWhileImportWorkload.commitSize)
    }

    /// A reader sees each commit once it returns: inserts, updates and deletes.
    @Test(arguments: concurrentReadStoreNames)
    func aReaderSeesEveryCommit(store name: String) throws {
        let directory = try TemporaryDirectory()
        let store = try openConcurrentStore(name, at: directory.url)
        try load(generator.items(1...200), into: store)
        let reader = try store.makeConcurrentReader()
        #expect(try reader.item(id: 7) == generator.items(7...7)[0])
        #expect(try reader.item(id: 201) == nil)
        try store.insertCommitted(generator.items(201...260))
        #expect(try reader.item(id: 230) == generator.items(230...230)[0])
        var updated = generator.items(7...7)[0]
        let update = generator.update(id: 7)
        try store.update([update])
        update.apply(to: &updated)
        #expect(try reader.item(id: 7) == updated)
        try store.delete(ids: [7, 230])
        #expect(try reader.item(id: 7) == nil)
        #expect(try reader.item(id: 230) == nil)
        #expect(try reader.item(id: 231) == generator.items(231...231)[0])
        try reader.close()
        try store.close()
    }

    /// Two threads for a second or more: the writer appends, updates and deletes in many small commits while the
    /// reader checks every answer.
    ///
    /// A read may see an item before or after a commit, never a mixture, and never miss an item committed before it
    /// started.
    @Test(arguments: concurrentReadStoreNames)
    func readsDuringWritesAreAlwaysCommittedStates(store name: String) throws {
        let directory = try TemporaryDirectory()
        try stress(try openConcurrentStore(name, at: directory.url), seconds: 1)
    }

    /// `packed` grows and remaps its files under the reader: from 1 MiB maps to several times that.
    @Test func packedRemapsUnderItsReaders() throws {
        let directory = try TemporaryDirectory()
        let store = try openConcurrentStore("packed", at: directory.url)
        let written = try stress(store, seconds: 3, minimumItems: 40_000)
        #expect(written >= 40_000, "enough rows and strings to outgrow the first 1 MiB maps")
    }

    /// `lmdb` doubles a full map while the reader reads: the resize waits for the read in progress.
    @Test func lmdbGrowsItsMapUnderItsReaders() throws {
        let directory = try TemporaryDirectory()
        let store = try LMDBItemStore(directory: directory.url, mapSize: 1 << 20)
        try stress(store, seconds: 3, minimumItems: 20_000)
        #expect(store.environment.resizeCount >= 2)
    }

    /// Runs the writer on this thread and a checking reader on another until `seconds` have passed, at least
    /// `minimumItems` were imported and the reader has read more than 100 times (for up to a minute: on a machine
    /// busy with other work a reader that waits for the writer's lock, as `grdb+queue`'s does, had read only 66
    /// times in a second); returns how many items were imported.
    ///
    /// Closes the store.
    @discardableResult
    func stress(_ store: any ConcurrentReadStore, seconds: Double, minimumItems: Int = 0) throws -> Int {
        let base: Int64 = 500
        try load(generator.items(1...base), into: store)
        // Ids that are multiples of 10 get deleted, the others updated, while the reader reads.
        let originals = generator.items(1...base)
        var updatedImages: [Int64: Item] = [:]
        for item in originals where item.id % 10 != 0 {
            var image = item
            generator.update(id: item.id).apply(to: &image)
            updatedImages[item.id] = image
        }
        let shared = StressShared()
        shared.committed.store(Int(base), ordering: .releasing)
        let reader = try store.makeConcurrentReader()
        let checker = StressReader(
            reader: reader, shared: shared, generator: generator, base: base, updatedImages: updatedImages)
        let thread = Thread { checker.run() }
        thread.start()
        var next = base + 1
        var rng = SplitMix64(seed: 9, stream: .getKeys, index: 77)
        let start = Date()
        var writerError: (any Error)?
        // An id drawn again after its deletion is left alone: a store rightly refuses to delete it twice.
        var deleted = Set<Int64>()
        do {
            while Date().timeIntervalSince(start) < seconds || Int(next - base - 1) < minimumItems
                || (shared.reads.load(ordering: .relaxed) <= 100 && Date().timeIntervalSince(start) < 60)
            {
                let end = next + 199
                try store.insertCommitted(generator.items(next...end))
                next = end + 1
                shared.committed.store(Int(end), ordering: .releasing)
                let id = 1 + Int64(rng.below(UInt64(base)))
                if id % 10 == 0 {
                    if deleted.insert(id).inserted { try store.delete(ids: [id]) }
                } else {
                    try store.update([generator.update(id: id)])
                }
            }
        } catch {
            writerError = error
        }
        shared.stop.store(true, ordering: .releasing)
        checker.finished.wait()
        try reader.close()
        try store.close()
        if let writerError { throw writerError }
        #expect(checker.failures.isEmpty, "\(checker.failures.prefix(3))")
        #expect(shared.reads.load(ordering: .relaxed) > 100)
        return Int(next - base - 1)
    }
}

/// What the writer tells the reader (the highest id committed so far, and when to stop) and the reader the writer
/// (how many reads it has done).
private final class StressShared: Sendable {
    let committed = Atomic<Int>(0)
    let stop = Atomic<Bool>(false)
    /// The reader's reads so far.
    let reads = Atomic<Int>(0)
}

/// The reader's side of the stress test: random ids up to a little past the last commit, every answer checked.
private final class StressReader: @unchecked Sendable {
    let reader: any ItemReader
    let shared: StressShared
    let generator: ItemGenerator
    let base: Int64
    let updatedImages: [Int64: Item]
    // Written by the reader's thread before it signals `finished`, read after.
    var failures: [String] = []
    let finished = DispatchSemaphore(value: 0)

    init(
        reader: any ItemReader, shared: StressShared, generator: ItemGenerator, base: Int64,
        updatedImages: [Int64: Item]
    ) {
        self.reader = reader
        self.shared = shared
        self.generator = generator
        self.base = base
        self.updatedImages = updatedImages
    }

    func run() {
        defer { finished.signal() }
        var rng = SplitMix64(seed: 5, stream: .getKeys, index: 99)
        while !shared.stop.load(ordering: .acquiring) && failures.count < 10 {
            let committed = Int64(shared.committed.load(ordering: .acquiring))
            let id = 1 + Int64(rng.below(UInt64(committed + 300)))
            do {
                let found = try reader.item(id: id)
                shared.reads.wrappingAdd(1, ordering: .relaxed)
                let original = generator.items(id...id)[0]
                switch found {
                case nil:
                    // Missing: deleted (ids up to `base` that are multiples of 10), or not committed when read.
                    if id <= base ? id % 10 != 0 : id <= committed {
                        failures.append("item \(id) missing")
                    }
                case let item?:
                    if item != original && item != updatedImages[id] {
                        failures.append("item \(id) read as \(item)")
                    }
                }
            } catch {
                failures.append("reading item \(id): \(error)")
            }
        }
    }
}
