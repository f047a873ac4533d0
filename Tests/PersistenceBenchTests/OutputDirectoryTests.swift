import Foundation
import Testing

@testable import PersistenceBench

/// One command per output directory, nothing in it or outside it lost: the lock, the refusals, `--replace`, and
/// links where the tool writes, with the real executable.
@Suite struct OutputDirectoryTests {
    /// A small run into `out`: the tool's arguments.
    private func run(_ out: URL, _ more: [String] = []) -> [String] {
        [
            "run", "--stores", "packed", "--workloads", "insert", "--scales", "1k", "--repetitions", "1", "--out",
            out.path,
        ]
            + more
    }

    @Test func aSecondClaimIsRefusedNamingItsHolder() throws {
        let temporary = try TemporaryDirectory()
        let first = try OutputDirectory(temporary.url.path, option: "--out", use: .fresh(replacing: false))
        #expect {
            _ = try OutputDirectory(temporary.url.path, option: "--out", use: .existing)
        } throws: { error in
            "\(error)".contains("is in use by process \(getpid()) (")
        }
        first.release()
        _ = try OutputDirectory(temporary.url.path, option: "--out", use: .existing)
    }

    @Test(.tags(.endToEnd), .timeLimit(.minutes(5))) func aKilledHolderLeavesNoLock() throws {
        let temporary = try TemporaryDirectory()
        let out = temporary.url.appendingPathComponent("out")
        let process = Process()
        process.executableURL = toolExecutable
        process.arguments = [
            "run", "--stores", "memory", "--workloads", "get", "--scales", "2k", "--repetitions", "200", "--out",
            out.path,
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let lock = out.appendingPathComponent(OutputDirectory.lockName)
        let started = Date()
        while (try? String(contentsOf: lock, encoding: .utf8))?.hasPrefix("\(process.processIdentifier) ") != true {
            guard Date().timeIntervalSince(started) < 60 else { break }
            usleep(10_000)
        }
        let refused = try runTool(run(out, ["--replace"]))
        #expect(refused.status == 2)
        #expect(refused.output.contains("is in use by process \(process.processIdentifier) ("), "\(refused.output)")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        // The cell it had started ends on its own within moments; the lock died with the run.
        _ = try OutputDirectory(out.path, option: "--out", use: .existing)
        usleep(500_000)
    }

    @Test(.tags(.endToEnd), .timeLimit(.minutes(5))) func anEarlierRunIsReplacedOnlyWhenAskedAndWholly() throws {
        let temporary = try TemporaryDirectory()
        let foreign = try temporary.subdirectory("foreign")
        try Data("mine".utf8).write(to: foreign.appendingPathComponent("thesis.txt"))
        let refusedForeign = try runTool(run(foreign, ["--replace"]))
        #expect(refusedForeign.status == 2)
        #expect(refusedForeign.output.contains("holds files this tool did not write (thesis.txt)"))
        #expect(try fileContents(of: foreign) == ["thesis.txt": Data("mine".utf8)])

        let out = temporary.url.appendingPathComponent("out")
        #expect(try runTool(run(out)).status == 0)
        let again = try runTool(run(out))
        #expect(again.status == 2)
        #expect(again.output.contains("holds an earlier run"), "\(again.output)")
        // A chart the next run will not draw, and a note a user keeps beside the run.
        try Data("<svg/>".utf8).write(to: out.appendingPathComponent("charts/stale.svg"))
        try Data("notes".utf8).write(to: out.appendingPathComponent("README.md"))
        let replaced = try runTool(run(out, ["--replace"]))
        #expect(replaced.status == 0, "\(replaced.output)")
        let after = try fileContents(of: out)
        #expect(after["charts/stale.svg"] == nil)
        #expect(after["README.md"] == Data("notes".utf8))
        #expect(after["results.json"] != nil)
    }

    @Test(.tags(.endToEnd), .timeLimit(.minutes(5))) func noCreateCopyOrRemovalFollowsALinkOutOfOut() throws {
        let temporary = try TemporaryDirectory()
        let outside = try (1...4).map { index in
            let directory = try temporary.subdirectory("outside-\(index)")
            try Data("keep \(index)".utf8).write(to: directory.appendingPathComponent("keep.txt"))
            return directory
        }
        let before = try outside.map { try fileContents(of: $0) }
        // An earlier run whose kept stores, scratch, fixtures and cell directory are links out of it.
        let out = temporary.url.appendingPathComponent("out")
        #expect(try runTool(run(out)).status == 0)
        let scratch = out.appendingPathComponent(OutputDirectory.scratchName)
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            at: out.appendingPathComponent("stores"), withDestinationURL: outside[0])
        try FileManager.default.createSymbolicLink(
            at: scratch.appendingPathComponent("fixtures"), withDestinationURL: outside[1])
        try FileManager.default.createSymbolicLink(
            at: scratch.appendingPathComponent("cell"), withDestinationURL: outside[2])
        let refused = try runTool(run(out, ["--keep-stores"]))
        #expect(refused.status == 2)
        let replaced = try runTool(run(out, ["--keep-stores", "--replace"]))
        #expect(replaced.status == 0, "\(replaced.output)")
        // The scratch itself a link.
        let linked = temporary.url.appendingPathComponent("linked")
        try FileManager.default.createDirectory(at: linked, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            at: linked.appendingPathComponent(OutputDirectory.scratchName), withDestinationURL: outside[3])
        #expect(try runTool(run(linked, ["--replace"])).status == 0)
        #expect(try outside.map { try fileContents(of: $0) } == before)
        var isLink = stat()
        #expect(lstat(out.appendingPathComponent("stores").path, &isLink) == 0 && isLink.st_mode & S_IFMT == S_IFDIR)
    }

    @Test(.tags(.endToEnd), .timeLimit(.minutes(5))) func mergeRefusesAnOutAmongItsInputs() throws {
        let temporary = try TemporaryDirectory()
        let shards = (1...2).map { temporary.url.appendingPathComponent("shard-\($0)") }
        for (index, shard) in shards.enumerated() {
            let made = try runTool([
                "run", "--stores", "packed", "--workloads", "insert,get", "--scales", "1k", "--repetitions", "1",
                "--shard", "\(index + 1)/2", "--out", shard.path,
            ])
            #expect(made.status == 0, "\(made.output)")
        }
        let before = try fileContents(of: shards[0])
        let merged = try runTool(["merge", shards[0].path, shards[1].path, "--out", shards[0].path, "--replace"])
        #expect(merged.status == 2)
        #expect(merged.output.contains("is one of the runs merged"), "\(merged.output)")
        #expect(try fileContents(of: shards[0]) == before)
    }

    @Test func aWriteThatFailsLeavesNoTemporary() throws {
        let temporary = try TemporaryDirectory()
        // A directory in the way: the rename over it fails after the temporary was written.
        let target = try temporary.subdirectory("results.json")
        try Data("x".utf8).write(to: target.appendingPathComponent("inside"))
        #expect(throws: (any Error).self) { try FileSystem.writeAtomically(Data("{}".utf8), to: target) }
        #expect(throws: (any Error).self) { try FileSystem.writeDurably(Data("{}".utf8), to: target) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.url.path) == ["results.json"])
    }

    @Test(.tags(.endToEnd), .timeLimit(.minutes(5))) func aResumeStoppedPartWayKeepsEveryFinishedCell() throws {
        let temporary = try TemporaryDirectory()
        let out = temporary.url.appendingPathComponent("out")
        let made = try runTool([
            "run", "--stores", "packed,memory", "--workloads", "insert,get", "--scales", "1k", "--repetitions", "2",
            "--out", out.path,
        ])
        #expect(made.status == 0, "\(made.output)")
        let before = try RunResults.load(named: out.path).cells.count
        // A resume of the run, killed as soon as it holds the directory: before any cell, every one is kept.
        let process = Process()
        process.executableURL = toolExecutable
        process.arguments = ["run", "--resume", out.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let lock = out.appendingPathComponent(OutputDirectory.lockName)
        let started = Date()
        while (try? String(contentsOf: lock, encoding: .utf8))?.hasPrefix("\(process.processIdentifier) ") != true,
            Date().timeIntervalSince(started) < 60
        {
            usleep(5_000)
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(try RunResults.load(named: out.path).cells.count == before)
    }

    @Test(.tags(.endToEnd), .timeLimit(.minutes(5))) func whatLooksLikeTheToolsButIsNotIsNeverRemoved() throws {
        let temporary = try TemporaryDirectory()
        // Folders named as a check's sides, with no run beside them: a user's.
        let folders = try temporary.subdirectory("folders")
        try FileManager.default.createDirectory(
            at: folders.appendingPathComponent("current"), withIntermediateDirectories: true)
        try Data("chapter 1".utf8).write(to: folders.appendingPathComponent("current/thesis.txt"))
        let refused = try runTool(run(folders, ["--replace"]))
        #expect(refused.status == 2)
        #expect(refused.output.contains("holds files this tool did not write (current)"), "\(refused.output)")
        #expect(try fileContents(of: folders) == ["current/thesis.txt": Data("chapter 1".utf8)])
        // A note inside an earlier run's charts/: --replace refuses rather than remove it.
        let out = temporary.url.appendingPathComponent("out")
        #expect(try runTool(run(out)).status == 0)
        try Data("mine".utf8).write(to: out.appendingPathComponent("charts/notes.txt"))
        let stray = try runTool(run(out, ["--replace"]))
        #expect(stray.status == 2)
        #expect(stray.output.contains("charts/notes.txt is not: move it"), "\(stray.output)")
        #expect(try fileContents(of: out)["charts/notes.txt"] == Data("mine".utf8))
        // A lock file that is a hard link to a user's file is not written through.
        let victim = temporary.url.appendingPathComponent("victim.txt")
        try Data("victim".utf8).write(to: victim)
        let linked = try temporary.subdirectory("linked")
        try FileManager.default.linkItem(at: victim, to: linked.appendingPathComponent(OutputDirectory.lockName))
        let hardLinked = try runTool(run(linked))
        #expect(hardLinked.status == 2)
        #expect(
            hardLinked.output.contains("holds a .persistbench.lock this tool did not write"), "\(hardLinked.output)")
        #expect(try Data(contentsOf: victim) == Data("victim".utf8))
    }

    @Test(.tags(.endToEnd), .timeLimit(.minutes(5))) func aResumeRefusesALinkWhereItWrites() throws {
        let temporary = try TemporaryDirectory()
        let outside = try temporary.subdirectory("outside")
        let out = temporary.url.appendingPathComponent("out")
        #expect(try runTool(run(out, ["--keep-stores"])).status == 0)
        try FileManager.default.removeItem(at: out.appendingPathComponent("stores"))
        try FileManager.default.createSymbolicLink(
            at: out.appendingPathComponent("stores"), withDestinationURL: outside)
        let resumed = try runTool(["run", "--resume", out.path])
        #expect(resumed.status == 2)
        #expect(resumed.output.contains("has a symbolic link where this tool writes (stores)"), "\(resumed.output)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path).isEmpty)
    }
}
