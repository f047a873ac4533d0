import Foundation
import PersistenceBench
import Testing

/// A run whose disk fills up: a small tmpfs as `--out` (mounting one needs root, as CI runs).
@Suite(.enabled(if: getuid() == 0, "mounting a tmpfs needs root")) struct FullDiskTests {
    @Test(.tags(.endToEnd), .timeLimit(.minutes(10)))
    func aRunOnAFullDiskStopsWithAClearMessageAndKeepsItsFinishedCells() throws {
        let temporary = try TemporaryDirectory()
        let mountPoint = try temporary.subdirectory("tiny")
        func mount(_ arguments: [String]) throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/mount")
            process.arguments = arguments
            try process.run()
            process.waitUntilExit()
            try #require(process.terminationStatus == 0, "mount \(arguments) failed")
        }
        try mount(["-t", "tmpfs", "-o", "size=14m", "tmpfs", mountPoint.path])
        defer { umount2(mountPoint.path, Int32(MNT_DETACH)) }
        let output = mountPoint.appendingPathComponent("run")
        let arguments = [
            "run", "--stores", "sqlite,packed,memory", "--workloads", "get,update", "--scales", "20k",
            "--repetitions", "1", "--out", output.path, "--fixtures", "none",
        ]
        // The run's estimate (3 stores' fixtures and a cell's copy at 20k) is more than the disk holds: refused
        // before anything is written, unless the user says to try.
        let refused = try runTool(arguments)
        #expect(refused.status == 2)
        #expect(refused.output.contains("the run may need 30.5 MiB in '\(output.path)'"), "\(refused.output)")
        #expect(!FileManager.default.fileExists(atPath: output.path))
        let run = try runTool(arguments + ["--ignore-free-space"])
        #expect(run.status == 1)
        #expect(run.output.contains("No space left on device"), "\(run.output)")
        #expect(run.output.contains("finished cells are in \(output.path)/results.json"))
        #expect(!run.output.contains("Fatal error") && !run.output.contains("signal"), "\(run.output)")
        let kept = try RunResults.load(from: output.appendingPathComponent("results.json"))
        #expect(kept.cells.filter { $0.status == .ok }.count >= 2)
    }
}
