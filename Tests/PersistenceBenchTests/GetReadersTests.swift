import Foundation
import MemoryStore
import PersistenceBench
import Testing

/// `get-readers`: K reader threads alone and beside the store's writer, and the closed-loop readers under it.
@Suite struct GetReadersTests {
    /// Every store with readers on other threads: each level's figures are recorded, every read and commit counted,
    /// and the digest (every thread's answers, then the store after every commit) is the generator's.
    @Test(arguments: ["sqlite", "grdb", "grdb+queue", "orm", "lmdb", "packed", "json", "memory"])
    func everyLevelIsMeasuredAloneAndBesideTheWriter(store name: String) throws {
        let directory = try TemporaryDirectory()
        let kind = try storeKind(name)
        let scale = 300
        let parameters = CellParameters(
            scale: scale, seed: 42, batchSize: 128, timeBox: .none, extras: [.readers([1, 3])])
        func context() -> WorkloadContext {
            WorkloadContext(parameters: parameters, stopwatch: Stopwatch(), progress: ProgressReporter())
        }
        let workload = GetReadersWorkload()
        try CellExecution.loadFixture(of: workload, into: kind, at: directory.url, context: context())
        let metrics = try CellExecution.measure(workload, on: kind, at: directory.url, context: context())
        let readers = try #require(metrics.readers)
        let (count, commits) = (GetReadersWorkload.count(scale: scale), GetReadersWorkload.commits(scale: scale))
        #expect(readers.levels.map(\.readers) == [1, 3])
        #expect(readers.readsPerThread == count && readers.writerAlone.commits == commits)
        #expect(metrics.operations == commits * 3)
        for level in readers.levels {
            #expect(level.alone.reads > 0 && level.alone.latency?.count == level.alone.reads)
            // `memory`'s commits write nothing: its writer may be done between two reads.
            #expect(level.besideWriter.reads > 0 || name == "memory")
            #expect(level.writer.commits == commits)
            #expect(level.alone.slowestThread <= level.alone.fastestThread)
        }
        // The answers: each thread's keys' items, from the generator; then every item after the writer's commits.
        let generator = ItemGenerator(seed: 42)
        var expected = Digest()
        for level in [1, 3] {
            for thread in 0..<level {
                for id in GetReadersWorkload.keys(scale: scale, seed: 42, thread: thread) {
                    var answer = Digest()
                    answer.add(answer: generator.item(id: id))
                    expected.add(answer)
                }
            }
        }
        expected.add(Digest((1...Int64(scale + commits * 3)).map(generator.item(id:))))
        #expect(metrics.digest == expected)
    }

    /// A reader reads its keys once, and goes on reading them until the caller (the writer) is done.
    @Test func readersGoOnReadingUntilTheWriterIsDone() throws {
        let directory = try TemporaryDirectory()
        let store = try #require(try MemoryItemStore.kind.open(directory.url) as? any ConcurrentReadStore)
        defer { try? store.close() }
        try store.insert((1...10).map(ItemGenerator(seed: 1).item(id:)))
        let readers = try (0..<2).map { _ in try store.makeConcurrentReader() }
        let keys: [[Int64]] = [[1, 2, 3], [4, 5, 6]]
        let (alone, _, _) = try ClosedLoopReads.run(readers: readers, keys: keys) {}
        #expect(alone.threads.map(\.answers.count) == [3, 3])
        let (beside, result, window) = try ClosedLoopReads.run(readers: readers, keys: keys) {
            usleep(50_000)
            return 7
        }
        #expect(result == 7 && window.upperBound - window.lowerBound >= 50_000_000)
        for thread in beside.threads {
            // A first pass kept whole, later passes counted where they started beside the writer.
            #expect(thread.answers.count == 3 && thread.laterReads > 3)
        }
        let figures = beside.figures(in: window)
        #expect(figures.reads > 6 && figures.latency?.count == figures.reads)
        for reader in readers { try reader.close() }
    }
}
