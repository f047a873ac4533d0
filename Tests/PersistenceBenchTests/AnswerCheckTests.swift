import Foundation
import Testing

@testable import PersistenceBench
@testable import Reports

/// Checks that say what they checked: a workload's answers held against what it knows of the fixture, a group of
/// one store called not compared, the messages a user meets with a bad results file or command.
@Suite struct AnswerCheckTests {
    private func context(scale: Int) -> WorkloadContext {
        WorkloadContext(scale: scale, seed: 7, batchSize: 100, stopwatch: Stopwatch(), progress: ProgressReporter())
    }

    @Test func aScanThatReadsAnotherNumberOfItemsFails() throws {
        let temporary = try TemporaryDirectory()
        let store = try openItemStore(try storeKind("memory"), at: temporary.url)
        defer { try? store.close() }
        try store.insert(ItemGenerator(seed: 7).items(1...99))
        #expect {
            _ = try ScanWorkload().run(on: store, context: context(scale: 100))
        } throws: { error in
            "\(error)".contains("scan read 99 items; the store was loaded with 100")
        }
        try store.insert(ItemGenerator(seed: 7).items(100...100))
        #expect(try ScanWorkload().run(on: store, context: context(scale: 100)).digest?.count == 100)
    }

    @Test func countWhereFailsWhenItsFiltersDoNotAddUpToTheItems() throws {
        let temporary = try TemporaryDirectory()
        let store = try openItemStore(try storeKind("memory"), at: temporary.url)
        defer { try? store.close() }
        try store.insert(ItemGenerator(seed: 7).items(1...50))
        #expect {
            _ = try CountWhereWorkload().run(on: store, context: context(scale: 60))
        } throws: { error in
            "\(error)".contains("the 8 filters count 50 items of 60")
        }
        _ = try CountWhereWorkload().run(on: store, context: context(scale: 50))
    }

    @Test func aPageIsHeldToItsLimitItsFilterItsOrderAndTheOtherPages() {
        let items = ItemGenerator(seed: 7).items(1...400).filter { $0.priority == .high }
        let sorted = items.sorted {
            $0.isInStock != $1.isInStock
                ? !$0.isInStock
                : $0.title != $1.title ? $0.title.utf8.lexicographicallyPrecedes($1.title.utf8) : $0.id < $1.id
        }
        func query(_ offset: Int) -> ItemPageQuery { ItemPageQuery(priority: .high, limit: 20, offset: offset) }
        func page(_ offset: Int) -> [Item] { Array(sorted.dropFirst(offset).prefix(20)) }
        var sound = PageCheck()
        for offset in stride(from: 0, through: 200, by: 20) { sound.check(page(offset), of: query(offset)) }
        #expect(sound.problem == nil, "\(sound.problem ?? "")")

        var over = PageCheck()
        over.check(Array(sorted.prefix(21)), of: query(0))
        #expect(over.problem?.contains("more than its limit of 20") == true)
        var stray = PageCheck()
        stray.check(
            page(0).dropLast() + ItemGenerator(seed: 7).items(1...40).filter { $0.priority == .low }.prefix(1),
            of: query(0))
        #expect(stray.problem?.contains("of another priority") == true, "\(stray.problem ?? "")")
        var unordered = PageCheck()
        unordered.check(page(0).reversed(), of: query(0))
        #expect(unordered.problem?.contains("out of order") == true)
        // A short page, then a full one further on: a store that lost rows in the middle.
        var lost = PageCheck()
        lost.check(Array(page(0).prefix(5)), of: query(0))
        lost.check(page(20), of: query(20))
        #expect(lost.problem?.contains("a full page at offset 20 after a short one") == true, "\(lost.problem ?? "")")
    }

    @Test func aGroupOfOneStoreIsNotCompared() {
        func cell(_ store: String, _ workload: String) -> CellResult {
            var result = CellResult(
                CellID(store: store, workload: workload, scale: Scale(records: 100), repetition: 1), status: .ok)
            result.metrics = CellMetrics(
                phase: PhaseFigures(timedSeconds: 1, operations: 100), resources: ResourceFigures(bytesOnDisk: 0),
                verification: CellVerification(digest: Digest(count: 100, hash: 7)))
            return result
        }
        let checks = DigestCheck.checks(of: [cell("sqlite", "scan"), cell("lmdb", "scan"), cell("sqlite", "get")])
        #expect(checks.map(\.compared) == [true, false])
        #expect(
            ReportSink.digestSummary(checks)
                == "Digests agree: 1 (workload, scale) group compared across stores; 1 with one store's cells only, "
                + "not compared (its repetitions agree with each other)")
        #expect(ReportSink.digestSummary([]) == "No digests compared: no cell finished")
    }

    @Test(.tags(.endToEnd), .timeLimit(.minutes(5))) func badResultsFilesAndCommandsAreNamedInOneLine() throws {
        let temporary = try TemporaryDirectory()
        let run = try temporary.subdirectory("run")
        try Data("garbage".utf8).write(to: run.appendingPathComponent("results.json"))
        for arguments in [
            ["report", run.path],
            [
                "export", "--format", "github-action-benchmark", "--run", run.path,
                temporary.url.appendingPathComponent("x.json").path,
            ],
        ] {
            let answer = try runTool(arguments)
            #expect(answer.status == 2, "\(arguments): \(answer.output)")
            #expect(
                answer.output.contains("is not a PersistenceBench results file: not a JSON object"), "\(answer.output)")
        }
        let unknown = try runTool(["frobnicate"])
        #expect(unknown.status == 2)
        #expect(unknown.output.contains("unknown command 'frobnicate'; the commands: run, merge"), "\(unknown.output)")
        let version = try runTool(["--version"])
        #expect(version.status == 0)
        #expect(version.output.contains("results schema \(RunResults.currentSchemaVersion)"), "\(version.output)")
    }
}
