import Foundation
import Testing

@testable import PersistenceBench

@Suite struct RunnerTests {
    @Test func aCrashReasonKeepsTheMessageAndDropsTheStackTrace() throws {
        let directory = try TemporaryDirectory()
        let output = directory.url.appendingPathComponent("output.txt")
        let crash = """
            PersistenceBench/Store.swift:12: Fatal error: Unexpectedly found nil while unwrapping an Optional value
            💣 Program crashed: System trap at 0x00005555
            Thread 0 crashed:
            0 0x000055555 specialized SQLiteItemStore.item(id:) + 12 in persistbench
            1 0x000055556 GetWorkload.run(on:context:) + 99 in persistbench
            """
        try Data(crash.utf8).write(to: output)
        let message = try #require(ChildSupervisor.crashMessage(at: output))
        #expect(message.hasSuffix("Fatal error: Unexpectedly found nil while unwrapping an Optional value"))
        #expect(!message.contains("Thread 0"))
        #expect(ChildSupervisor.crashMessage(at: directory.url.appendingPathComponent("missing.txt")) == nil)
    }

    /// A release build's checks trap without a message: the backtracer's banner names the failure, and the first
    /// frame in a source file says where.
    @Test func aReleaseBuildsCrashIsNamedByTheBacktracersFailureAndItsPlace() {
        let crash = """
            *** Signal 4: Backtracing from 0x55e4ccf43e00... done ***

            *** Swift runtime failure: Double value cannot be converted to UInt64 because the result would be \
            greater than UInt64.max ***

            Thread 0 "persistbench" crashed:
              0 [inlined] [system] 0x000055e4ccf43e00 Swift runtime failure: Double value cannot be converted in \
            persistbench at //<compiler-generated>
              1                    0x000055e4ccf43e00 TimeBox.start(steps:minimum:) + 240 in persistbench at \
            /work/main/Sources/PersistenceBench/Workloads/TimeBox.swift:58:35
            """
        #expect(
            ChildSupervisor.crashMessage(in: crash)
                == "Swift runtime failure: Double value cannot be converted to UInt64 because the result would be "
                + "greater than UInt64.max (at TimeBox.swift:58:35)")
        let signal = """
            *** Signal 11: Backtracing from 0x1234... done ***
            *** Program crashed: Bad pointer dereference at 0x0000000000000008 ***
            Thread 0 crashed:
            0 0x1234 sqlite3VdbeExec + 1 in libsqlite3.so.0
            """
        #expect(
            ChildSupervisor.crashMessage(in: signal) == "Program crashed: Bad pointer dereference at 0x0000000000000008"
        )
    }

    /// A cell whose child traps (a time box no option lets through: a request written past the bounds) is a DNF
    /// whose reason is the runtime's failure, and its child's output is kept in the run's cells/.
    ///
    /// Counted, the same cell also keeps valgrind's log beside the results, the scratch it was written in being
    /// removed.
    @Test(.tags(.endToEnd), .timeLimit(.minutes(5)), arguments: [false, true])
    func aCrashedCellSaysWhyAndKeepsItsOutput(counted: Bool) throws {
        let directory = try TemporaryDirectory()
        let kind = try storeKind("memory")
        let workload = try #require(WorkloadCatalog.workload(named: "get"))
        var configuration = RunConfiguration(
            stores: [kind.name], workloads: [workload.name], scales: [Scale(records: 200)], repetitions: 1,
            timeBoxSeconds: 1e30)
        configuration.counted = counted ? true : nil
        let launcher = try CellLauncher(
            executable: toolExecutable.path, configuration: configuration,
            workDirectory: directory.url.appendingPathComponent(OutputDirectory.scratchName),
            runDirectory: directory.url,
            observer: SilentObserver())
        let cell = PlannedCell(store: kind, workload: workload, scale: Scale(records: 200), repetition: 1)
        let (result, _) = try launcher.measure(cell, box: TimeBox(seconds: 1e30), keep: nil) {}
        #expect(result.status == .dnf)
        let reason = try #require(result.reason)
        #expect(reason.contains("crashed with signal"), "\(reason)")
        #expect(reason.contains("Double value cannot be converted to UInt64"), "\(reason)")
        #expect(!reason.contains("Backtracing"), "\(reason)")
        #expect(reason.hasSuffix("(its output: cells/memory-get-200-1.txt)"), "\(reason)")
        let kept = try String(
            contentsOf: directory.url.appendingPathComponent("cells/memory-get-200-1.txt"), encoding: .utf8)
        #expect(kept.contains("crashed"), "\(kept)")
        guard counted else { return }
        #expect(reason.contains("(valgrind's log: cells/memory-get-200-1.valgrind.log)"), "\(reason)")
        let log = try String(
            contentsOf: directory.url.appendingPathComponent("cells/memory-get-200-1.valgrind.log"), encoding: .utf8)
        #expect(log.contains("Callgrind"), "\(log)")
    }

    @Test(.tags(.endToEnd), .timeLimit(.minutes(10))) func storesRunInASeededShuffledOrderThatReportsDoNotShow() throws
    {
        let stores = ["a", "b", "c", "d", "e", "f", "g", "h", "i"]
        let orders = (1...20).map { StoreShuffle(seed: 42).order(stores, round: UInt64($0)) }
        #expect(orders.allSatisfy { $0.sorted() == stores })
        #expect(orders == (1...20).map { StoreShuffle(seed: 42).order(stores, round: UInt64($0)) })
        #expect(Set(orders).count > 15)
        // No store is always first or always last.
        #expect(Set(orders.map(\.first!)).count > 3 && Set(orders.map(\.last!)).count > 3)
        #expect(StoreShuffle(seed: 43).order(stores, round: 1) != orders[0])

        // A real run: its cells in results.json follow the shuffled plan; its report lists stores as configured.
        let directory = try TemporaryDirectory()
        let out = directory.url.appendingPathComponent("out")
        let run = try runTool([
            "run", "--stores", "sqlite,lmdb,packed", "--workloads", "get,scan", "--scales", "300",
            "--repetitions", "3", "--out", out.path,
        ])
        #expect(run.status == 0, "\(run.output)")
        let results = try RunResults.load(from: out.appendingPathComponent("results.json"))
        var expected: [String] = []
        for round in 1...6 {
            expected += StoreShuffle(seed: 42).order(["sqlite", "lmdb", "packed"], round: UInt64(round))
        }
        #expect(results.cells.map(\.store) == expected)
        #expect(results.stores == ["sqlite", "lmdb", "packed"])
    }

    /// At every scale after the first, the first repetition of a boxed workload runs its slowest store (per step, at
    /// the scale before) first, so that none runs again on the count it sets.
    @Test(.tags(.endToEnd), .timeLimit(.minutes(10))) func theFirstRepetitionRunsTheSlowestStoreFirst() throws {
        let (sqlite, json, memory) = (try storeKind("sqlite"), try storeKind("json"), try storeKind("memory"))
        let workload = InsertEachWorkload()
        func planned(_ store: StoreKind, _ records: Int) -> PlannedCell {
            PlannedCell(store: store, workload: workload, scale: Scale(records: records), repetition: 1)
        }
        func measured(_ store: String, _ records: Int, seconds: Double, steps: Int?) -> CellResult {
            CellResult(
                CellID(store: store, workload: workload.name, scale: Scale(records: records), repetition: 1),
                status: .ok,
                metrics: CellMetrics(
                    phase: PhaseFigures(timedSeconds: seconds, operations: steps ?? 1),
                    resources: ResourceFigures(bytesOnDisk: 0),
                    verification: CellVerification(digest: Digest(), steps: steps)))
        }
        let shuffled = [planned(memory, 2_000), planned(sqlite, 2_000), planned(json, 2_000)]
        // The first scale: nothing measured before, the shuffled order.
        #expect(SlowestFirst.order(shuffled, measured: []).map(\.store.name) == ["memory", "sqlite", "json"])
        let atOneThousand = [
            measured("memory", 1_000, seconds: 0.001, steps: 40), measured("json", 1_000, seconds: 0.4, steps: 40),
            measured("sqlite", 1_000, seconds: 0.2, steps: 40),
            // A larger scale, another repetition, or an earlier scale than the largest below: not used.
            measured("memory", 5_000, seconds: 9, steps: 1), measured("sqlite", 500, seconds: 9, steps: 1),
        ]
        #expect(
            SlowestFirst.order(shuffled, measured: atOneThousand).map(\.store.name) == ["json", "sqlite", "memory"])
        // A store with no step count below (it did not finish) runs first.
        let withoutSQLite = atOneThousand.filter { $0.store != "sqlite" }
        #expect(
            SlowestFirst.order(shuffled, measured: withoutSQLite).map(\.store.name) == ["sqlite", "json", "memory"])

        // A real run: json's durable insert rewrites its file, the slowest; at the second scale no cell runs again.
        let directory = try TemporaryDirectory()
        let out = directory.url.appendingPathComponent("out")
        let run = try runTool([
            "run", "--stores", "sqlite,json,memory", "--workloads", "insert-each", "--scales", "3k,6k",
            "--repetitions", "1", "--time-box", "100ms", "--out", out.path, "--strict",
        ])
        #expect(run.status == 0, "\(run.output)")
        let finished = run.output.split(separator: "\n").filter { $0.contains("insert-each 6k rep 1:") }
        #expect(finished.count == 3, "\(run.output)")
        let results = try RunResults.load(from: out.appendingPathComponent("results.json"))
        #expect(results.cells.filter { $0.scale.records == 6_000 }.first?.store == "json")
    }

    /// A killed run keeps every finished cell: results are written after each one.
    @Test func aKilledRunKeepsItsFinishedCells() throws {
        let directory = try TemporaryDirectory()
        let out = directory.url.appendingPathComponent("out")
        let process = Process()
        process.executableURL = toolExecutable
        process.arguments = [
            "run", "--stores", "sqlite", "--workloads", "insert,scan", "--scales", "2k", "--repetitions", "50",
            "--out", out.path,
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let resultsFile = out.appendingPathComponent("results.json")
        var finishedCells = 0
        let deadline = Date().addingTimeInterval(60)
        while finishedCells < 3 && Date() < deadline {
            usleep(50_000)
            finishedCells = (try? RunResults.load(from: resultsFile))?.cells.count ?? 0
        }
        // SIGKILL, as an out-of-memory kill or a closed session would: nothing gets a chance to clean up.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let results = try RunResults.load(from: resultsFile)
        #expect(results.cells.count >= 3)
        #expect(results.cells.count < 100)
        #expect(results.finishedAt == nil)
        #expect(results.cells.allSatisfy { $0.status == .ok })
        let report = try String(contentsOf: out.appendingPathComponent("report.md"), encoding: .utf8)
        #expect(report.contains("**incomplete**"))
    }
}
