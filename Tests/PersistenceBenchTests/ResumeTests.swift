import Foundation
import PersistenceBench
import Testing

/// `run --resume`: a run killed twice, resumed each time, ends with the cells of a run never interrupted.
@Suite struct ResumeTests {
    /// A finished run of `sqlite` and `memory` at 1k in `temporary`: its directory, results.json and results.
    static func finishedRun(_ workloads: String, in temporary: TemporaryDirectory) throws -> (
        out: URL, file: URL, results: RunResults
    ) {
        let out = temporary.url.appendingPathComponent("out")
        let run = try runTool([
            "run", "--stores", "sqlite,memory", "--workloads", workloads, "--scales", "1k", "--repetitions", "1",
            "--out", out.path,
        ])
        #expect(run.status == 0, "\(run.output)")
        let file = out.appendingPathComponent("results.json")
        return (out, file, try RunResults.load(from: file))
    }

    /// Starts `persistbench arguments`, and kills it and its cell process with SIGKILL once `results` holds
    /// `cells` cells.
    private func killed(after cells: Int, _ arguments: [String], results: URL) throws {
        let process = Process()
        process.executableURL = toolExecutable
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        while process.isRunning {
            if let saved = try? RunResults.load(from: results), saved.cells.count >= cells { break }
            usleep(20_000)
        }
        let children = Process()
        children.executableURL = URL(fileURLWithPath: "/usr/bin/pkill")
        children.arguments = ["-KILL", "-P", "\(process.processIdentifier)"]
        try children.run()
        children.waitUntilExit()
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal, "the run ended before it could be killed")
    }

    @Test(.tags(.endToEnd), .timeLimit(.minutes(10))) func aRunKilledTwiceResumesToTheCellsOfAnUninterruptedRun() throws
    {
        let temporary = try TemporaryDirectory()
        let matrix = [
            "run", "--stores", "sqlite,packed,memory", "--workloads", "get,count-where,update", "--scales", "1k",
            "--repetitions", "2",
        ]
        let whole = temporary.url.appendingPathComponent("whole")
        let uninterrupted = try runTool(matrix + ["--out", whole.path])
        #expect(uninterrupted.status == 0, "\(uninterrupted.output)")
        let resumed = temporary.url.appendingPathComponent("resumed")
        let results = resumed.appendingPathComponent("results.json")
        try killed(after: 3, matrix + ["--out", resumed.path], results: results)
        let first = try RunResults.load(from: results).cells.count
        try killed(after: first + 5, ["run", "--resume", resumed.path], results: results)
        #expect(try RunResults.load(from: results).finishedAt == nil)
        let last = try runTool(["run", "--resume", resumed.path])
        #expect(last.status == 0, "\(last.output)")
        #expect(last.output.contains("finished cells kept"))
        let expected = try RunResults.load(from: whole.appendingPathComponent("results.json"))
        let found = try RunResults.load(from: results)
        #expect(found.finishedAt != nil)
        #expect(found.cells.count == expected.cells.count && expected.cells.count == 18)
        for (want, have) in zip(expected.cells, found.cells) {
            #expect(
                [want.store, want.workload, "\(want.repetition)"] == [have.store, have.workload, "\(have.repetition)"])
            #expect(
                want.status == have.status && want.metrics?.digest == have.metrics?.digest,
                "\(want.store) \(want.workload)")
        }
    }

    /// A cell stopped from outside the run (Ctrl-C reaches the cell before the run) is not a result: it runs again.
    @Test(.tags(.endToEnd), .timeLimit(.minutes(10))) func aCellStoppedFromOutsideRunsAgainOnResume() throws {
        let temporary = try TemporaryDirectory()
        var (out, file, results) = try Self.finishedRun("get", in: temporary)
        let stopped = try #require(results.cells.firstIndex { $0.store == "memory" })
        results.cells[stopped] = CellResult(
            CellID(store: "memory", workload: "get", scale: Scale(records: 1_000), repetition: 1), status: .dnf,
            reason: "stopped from outside the run by signal 2 (Interrupt)")
        results.cells[stopped].interrupted = true
        results.finishedAt = nil
        try results.jsonData().write(to: file)
        let resumed = try runTool(["run", "--resume", out.path])
        #expect(resumed.status == 0, "\(resumed.output)")
        #expect(resumed.output.contains("1 finished cells kept"), "\(resumed.output)")
        let again = try RunResults.load(from: file)
        #expect(again.cells.count == 2 && again.cells.allSatisfy { $0.status == .ok && $0.interrupted == nil })
    }

    /// Resumed on another machine (here: its results.json says another boot began it), a run keeps the groups that
    /// finished there and runs the group it stopped in again, whole, so that each group's stores are compared on
    /// one machine; results.json and the report name both machines.
    @Test(.tags(.endToEnd), .timeLimit(.minutes(10)))
    func aRunResumedOnAnotherMachineRunsTheGroupItStoppedInAgainWhole() throws {
        let temporary = try TemporaryDirectory()
        var (out, file, results) = try Self.finishedRun("get,count-where", in: temporary)
        let here = try #require(results.environment.bootID)
        #expect(results.cells.allSatisfy { $0.bootID == here })
        // Another boot began it, in results that name no cell's machine (the run's is theirs), and it stopped in
        // count-where 1k after one of its two cells.
        let elsewhere = "0ther000-0000-4000-8000-000000000000"
        results.environment.bootID = elsewhere
        for index in results.cells.indices { results.cells[index].bootID = nil }
        results.cells.remove(at: try #require(results.cells.lastIndex { $0.workload == "count-where" }))
        results.finishedAt = nil
        try results.jsonData().write(to: file)

        let resumed = try runTool(["run", "--resume", out.path])
        #expect(resumed.status == 0, "\(resumed.output)")
        #expect(resumed.output.contains("2 finished cells kept"), "\(resumed.output)")
        #expect(
            resumed.output.contains("is not the one that began count-where 1k: each runs again here whole"),
            "\(resumed.output)")
        let again = try RunResults.load(from: file)
        #expect(again.cells.count == 4 && again.finishedAt != nil)
        #expect(again.cells.filter { $0.workload == "get" }.allSatisfy { $0.bootID == nil })
        #expect(again.cells.filter { $0.workload == "count-where" }.allSatisfy { $0.bootID == here })
        #expect(again.resumedOn?.map(\.bootID) == [here])
        #expect(again.machines.map(\.name) == ["boot 0ther000", "boot \(here.prefix(8))"])
        let report = try String(contentsOf: out.appendingPathComponent("report.md"), encoding: .utf8)
        #expect(report.contains("Resumed on another machine (`run --resume`)"), "\(report)")
        #expect(report.contains("| – | boot 0ther000 |") && report.contains("| get 1k |"), "\(report)")
    }

    /// A run is one build: resuming it with a build of another commit is refused, and its cells are left as they
    /// were.
    @Test(.tags(.endToEnd), .timeLimit(.minutes(10))) func resumingARunOfAnotherCommitIsRefused() throws {
        let temporary = try TemporaryDirectory()
        var (out, file, results) = try Self.finishedRun("get", in: temporary)
        results.environment.gitCommit = "0123456789ab"
        results.cells.removeLast()
        results.finishedAt = nil
        try results.jsonData().write(to: file)
        let before = try Data(contentsOf: file)

        let resumed = try runTool(["run", "--resume", out.path])
        #expect(resumed.status == 2, "\(resumed.output)")
        #expect(resumed.output.contains("commits differ (0123456789ab and "), "\(resumed.output)")
        #expect(resumed.output.contains("resume it from a checkout of 0123456789ab"), "\(resumed.output)")
        #expect(try Data(contentsOf: file) == before)
    }

    @Test(.tags(.endToEnd), .timeLimit(.minutes(10))) func resumingADirectoryWithoutARunIsNamed() throws {
        let run = try runTool(["run", "--resume", "/nonexistent-dir"])
        #expect(run.status == 2)
        #expect(run.output.contains("cannot resume '/nonexistent-dir'"), "\(run.output)")
    }
}
