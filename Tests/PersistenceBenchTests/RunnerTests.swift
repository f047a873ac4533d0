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
        let message = try #require(Runner.crashMessage(at: output))
        #expect(message.hasSuffix("Fatal error: Unexpectedly found nil while unwrapping an Optional value"))
        #expect(!message.contains("Thread 0"))
        #expect(Runner.crashMessage(at: directory.url.appendingPathComponent("missing.txt")) == nil)
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
