import Foundation
import Synchronization

/// How a counted cell's process starts (`persistbench run --count`): under valgrind's callgrind with
/// instrumentation off until the counted region (so that start-up, opening the store and the probes run at
/// valgrind's uninstrumented speed), libOperationCounter preloaded, and Swift's hashing seeded alike in every
/// process, so that a dictionary's probes, and so its instructions, are the same from run to run.
package struct CountingLauncher: Sendable {
    /// The steps every loop of a counted run does (or all of its own, if fewer): the same for every store and every
    /// run, and few enough that the slowest cells (`write-then-page`'s rounds of GRDB, 20 s a cell under callgrind
    /// at 200) take a few seconds.
    ///
    /// Counts are exact: they need no more samples.
    package static let steps = 50

    /// valgrind's executable.
    let valgrind: String
    /// libOperationCounter.so, built beside the tool.
    let library: String

    /// Finds valgrind on the PATH and the library beside `executable`; throws, naming what is missing and how to
    /// get it, otherwise.
    init(beside executable: String) throws {
        guard let valgrind = Subprocess.executablePath(named: "valgrind") else {
            throw BenchError(
                "counting needs valgrind (for callgrind's instruction counts): run 'make deps', or install it")
        }
        let library = URL(fileURLWithPath: executable).deletingLastPathComponent()
            .appendingPathComponent("libOperationCounter.so").path
        guard FileManager.default.fileExists(atPath: library) else {
            throw BenchError(
                "counting needs libOperationCounter.so beside \(executable); build it with "
                    + "`swift build -c release --product OperationCounter` (`make build` does)")
        }
        self.valgrind = valgrind
        self.library = library
        try checkValgrindReads(executable)
    }

    /// Runs `executable` once under valgrind, uninstrumented (`--tool=none`, its `--help`), so that a build whose
    /// debug information valgrind cannot read stops here, before any cell, with valgrind's words and the remedy,
    /// rather than as every counted cell failing (a second or two).
    private func checkValgrindReads(_ executable: String) throws {
        guard Self.readable.withLock({ !$0.contains(executable) }) else { return }
        let log = FileManager.default.temporaryDirectory
            .appendingPathComponent("persistbench-\(getpid())-valgrind-check.log").path
        defer { unlink(log) }
        let child = try ChildProcess(
            arguments: [valgrind, "--tool=none", "--log-file=\(log)", executable, "--help"], outputPath: "/dev/null",
            progressPipe: false)
        let ending = child.waitUntilEnded().0
        if let failure = Self.failure(loggedIn: log) { throw BenchError("counting cannot start: \(failure)") }
        guard case .exited(code: 0) = ending else {
            throw BenchError(
                "counting cannot start: \(executable) --help failed under valgrind (--tool=none); its log: "
                    + ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "none"))
        }
        Self.readable.withLock { _ = $0.insert(executable) }
    }

    /// The executables valgrind read in this process: checked once each.
    private static let readable = Mutex<Set<String>>([])

    /// `command` (the child's program and arguments) under callgrind, its dumps and log written into
    /// `dumpDirectory` (the counted region's is the first dump, `callgrind.out.1`), with each instruction's address
    /// (for the functions inlined there: `CallGraph.resolveInlinedFrames`).
    func wrapping(_ command: [String], dumpDirectory: String) -> [String] {
        [
            valgrind, "--tool=callgrind", "--instr-atstart=no", "--dump-line=no", "--dump-instr=yes",
            "--compress-strings=no",
            "--collect-systime=nsec",
            "--callgrind-out-file=\(dumpDirectory)/callgrind.out", "--log-file=\(dumpDirectory)/valgrind.log",
        ] + command
    }

    var environment: [String] { ["LD_PRELOAD=\(library)", "SWIFT_DETERMINISTIC_HASHING=1"] }

    /// Why valgrind stopped a child it ran, from its log at `path` (a cell's goes with the cell's scratch):
    /// the line it gave up with and the one that says why, or nil when it did not give up.
    ///
    /// Valgrind 3.19 cannot read DWARF 5 debug information Swift 6's clang writes for C targets; that one gets its
    /// remedy.
    static func failure(loggedIn path: String) -> String? {
        guard let log = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        // Each line is "==PID== text" (or "### text" from the debug-information reader); valgrind's last line says
        // it gave up, and a line about DWARF (anywhere before it) says why.
        let lines = log.split(separator: "\n").map { line in
            line.split(separator: " ", maxSplits: 1).dropFirst().first.map {
                $0.trimmingCharacters(in: .whitespaces)
            } ?? ""
        }.filter { !$0.isEmpty }
        guard let end = lines.lastIndex(where: { $0.contains("Giving up") || $0.contains("I can't recover") }) else {
            return nil
        }
        let cause = lines[..<end].first { $0.localizedCaseInsensitiveContains("dwarf") || $0.contains("DW_FORM") }
        let said = [cause, lines[end]].compactMap { $0 }.joined(separator: " … ")
        let dwarf =
            cause == nil
            ? "" : ": valgrind 3.19 cannot read DWARF 5; build C targets with `-Xcc -gdwarf-4` (docs/your-own-store.md)"
        return "valgrind gave up (\(said))" + dwarf
    }

    /// The counted region's totals from the child's dump in `dumpDirectory`, or nil where there is none.
    static func totals(dumpedIn dumpDirectory: String) -> CallgrindTotals? {
        guard let text = try? String(contentsOfFile: dumpDirectory + "/callgrind.out.1", encoding: .utf8) else {
            return nil
        }
        return CallgrindTotals(callgrindOutput: text)
    }
}
