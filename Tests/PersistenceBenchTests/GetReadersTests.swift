import Foundation
import MemoryStore
import PersistenceBench
import Testing

/// `get-readers`, `page-readers`, `search-readers`: K reader threads alone and beside the store's writer, and the
/// closed-loop readers under them.
@Suite struct GetReadersTests {
    /// Every store with readers on other threads: each level's figures are recorded, every read and commit counted,
    /// and the digest (every thread's answers, then the store after every commit) is the generator's.
    @Test(arguments: storeNames(running: ReadersWorkload(.get), adding: ["grdb+queue"]))
    func everyLevelIsMeasuredAloneAndBesideTheWriter(store name: String) throws {
        let directory = try TemporaryDirectory()
        let kind = try storeKind(name)
        let scale = 300
        let parameters = CellParameters(
            scale: scale, seed: 42, batchSize: 128, timeBox: .none, extras: [.readers([1, 3])])
        func context() -> WorkloadContext {
            WorkloadContext(parameters: parameters, stopwatch: Stopwatch(), progress: ProgressReporter())
        }
        let workload = ReadersWorkload(.get)
        try CellExecution.loadFixture(of: workload, into: kind, at: directory.url, context: context())
        let metrics = try CellExecution.measure(workload, on: kind, at: directory.url, context: context())
        let readers = try #require(metrics.figures?.readers)
        let (count, commits) = (ReadersWorkload.count(scale: scale), ReadersWorkload.commits(scale: scale))
        #expect(readers.levels.map(\.readers) == [1, 3])
        #expect(readers.readsPerThread == count && readers.writerAlone.commits == commits)
        // The writer alone and beside the readers at each of two levels.
        #expect(metrics.phase.operations == commits * 4)
        for level in readers.levels {
            #expect(level.alone.reads > 0 && level.alone.latency?.count == level.alone.reads)
            // Every store's window beside the writer lasts the floor, however fast its commits: every thread reads
            // in it, its first pass among them.
            let window = Double(level.besideWriter.reads) / max(level.besideWriter.readsPerSecond, 1e-9)
            #expect(window >= ReadersWorkload.floorSeconds * 0.99, "\(window) s")
            #expect(level.besideWriter.slowestThread > 0)
            #expect((level.besideWriter.firstPassReads ?? 0) > 0 && level.besideWriter.firstPassLatency != nil)
            #expect(level.writer.commits == commits && level.writerAlone?.commits == commits)
            // Padding only beside the readers (how much depends on the machine: under readers that hold its lock a
            // store's 30 inserts may take the whole floor).
            #expect(level.writerAlone?.padding == nil && level.writer.padding != nil)
            #expect(level.alone.slowestThread <= level.alone.fastestThread)
        }
        // The answers: each thread's keys' items, alone then beside the writer, from the generator; then the store's
        // items: the fixture's and the writer's timed inserts, four runs of them, none of its padding.
        let generator = ItemGenerator(seed: 42)
        var expected = Digest()
        for (index, level) in [1, 3].enumerated() {
            for thread in 0..<level {
                for besideWriter in [false, true] {
                    let asking = ReadersWorkload.Asking(thread: thread, level: index, besideWriter: besideWriter)
                    for id in ReadersWorkload.keys(scale: scale, seed: 42, asking: asking) {
                        var answer = Digest()
                        answer.add(answer: generator.item(id: id))
                        expected.add(answer)
                    }
                }
            }
        }
        let written = (0..<4).flatMap { ReadersWorkload.writerIDs(scale: scale, run: $0) }
        expected.add(Digest(((1...Int64(scale)).map { $0 } + written).map(generator.item(id:))))
        #expect(metrics.digest == expected)
    }

    /// Pages and keystrokes on K readers, for every store with readers on other threads: every pass answers as the
    /// first (the writer's items are on no reader's page and match no typed text), and the digest holds each thread's
    /// answers, computed here from the generator, then the store's items with the writer's.
    @Test(
        arguments: storeNames(running: ReadersWorkload(.page), adding: ["grdb+queue"]) {
            ReadersWorkload(.search).applies(to: $0)
        })
    func pagesAndKeystrokesAnswerAloneAsBesideTheWriter(store name: String) throws {
        let kind = try storeKind(name)
        let scale = 300
        let parameters = CellParameters(
            scale: scale, seed: 42, batchSize: 128, timeBox: .none, extras: [.readers([2])])
        let generator = ItemGenerator(seed: 42)
        let all = (1...Int64(scale)).map(generator.item(id:))
        for question in [ReadersWorkload.Question.page, .search] {
            let directory = try TemporaryDirectory()
            let workload = ReadersWorkload(question)
            let context = WorkloadContext(parameters: parameters, stopwatch: Stopwatch(), progress: ProgressReporter())
            try CellExecution.loadFixture(of: workload, into: kind, at: directory.url, context: context)
            let metrics = try CellExecution.measure(
                workload, on: kind, at: directory.url,
                context: WorkloadContext(parameters: parameters, stopwatch: Stopwatch(), progress: ProgressReporter()))
            let level = try #require(metrics.figures?.readers?.levels.first)
            #expect(level.readers == 2 && level.alone.reads > 0)
            var expected = Digest()
            for thread in 0..<2 {
                for asked in [false, true].flatMap({ besideWriter in
                    workload.questions(
                        scale: scale, seed: 42,
                        asking: ReadersWorkload.Asking(thread: thread, besideWriter: besideWriter))
                }) {
                    var answer = Digest()
                    switch asked {
                    case .page(let query):
                        let matching = all.filter { $0.priority == query.priority }
                            .sorted(by: ItemPageQuery.areInIncreasingOrder)
                        answer.add(Digest(Array(matching.dropFirst(query.offset).prefix(query.limit))))
                    case .search(let search):
                        let expected = SearchTests.expected(search.text, in: all, limit: search.limit)
                        answer.add(expected.count)
                        answer.add(Digest(expected.page))
                    case .get: Issue.record("a lookup among \(question) readers' questions")
                    }
                    expected.add(answer)
                }
            }
            expected.add(
                Digest(
                    all
                        + (0..<2).flatMap { ReadersWorkload.writerIDs(scale: scale, run: $0) }.map {
                            workload.writerItem(id: $0, items: generator)
                        }))
            #expect(metrics.digest == expected, "\(name) \(question)")
        }
    }

    /// A reader reads its keys once, and goes on reading them until the caller (the writer) is done.
    @Test func readersGoOnReadingUntilTheWriterIsDone() throws {
        let directory = try TemporaryDirectory()
        let store = try #require(try MemoryItemStore.kind.open(directory.url) as? any ConcurrentReadStore)
        defer { try? store.close() }
        try store.insert((1...10).map(ItemGenerator(seed: 1).item(id:)))
        let readers = try (0..<2).map { _ in try store.makeConcurrentReader() }
        let keys: [[ReaderQuestion]] = [[1, 2, 3], [4, 5, 6]].map { $0.map(ReaderQuestion.get) }
        let (alone, _, _) = try ClosedLoopReads.run(readers: readers, questions: keys) {}
        #expect(alone.threads.map(\.answers.count) == [3, 3])
        let (beside, result, window) = try ClosedLoopReads.run(readers: readers, questions: keys) {
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
