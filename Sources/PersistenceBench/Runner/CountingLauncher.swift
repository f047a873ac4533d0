import Foundation

/// How a counted cell's process starts (`persistbench run --count`): under valgrind's callgrind with
/// instrumentation off until the counted region (so that start-up, opening the store and the probes run at
/// valgrind's uninstrumented speed), libOperationCounter preloaded, and Swift's hashing seeded alike in every
/// process, so that a dictionary's probes, and so its instructions, are the same from run to run.
package struct CountingLauncher: Sendable {
    /// The steps every loop of a counted run does (or all of its own, if fewer): the same for every store and every
    /// run, and few enough that the slowest cells (`write-then-page`'s rounds of GRDB, 20 s a cell under callgrind
    /// at 200) take a few seconds. Counts are exact: they need no more samples.
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
    }

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

    /// Why valgrind stopped a child it ran, from its log in `dumpDirectory` (the log goes with the cell's scratch):
    /// its last words before "Giving up", or nil when it did not give up. Valgrind 3.19 cannot read the DWARF 5
    /// debug information Swift 6's clang writes for C targets; that one gets its remedy.
    static func failure(loggedIn dumpDirectory: String) -> String? {
        guard let log = try? String(contentsOfFile: dumpDirectory + "/valgrind.log", encoding: .utf8) else {
            return nil
        }
        // Each line is "==PID== text"; what valgrind says when it gives up comes just before "Giving up".
        let lines = log.split(separator: "\n").map { line in
            line.split(separator: " ", maxSplits: 1).dropFirst().first.map(String.init) ?? ""
        }.filter { !$0.isEmpty }
        guard let end = lines.lastIndex(where: { $0.contains("Giving up") || $0.contains("I can't recover") }) else {
            return nil
        }
        let said = lines[max(0, end - 2)...end].joined(separator: " ")
        let dwarf =
            said.localizedCaseInsensitiveContains("dwarf")
            ? ": valgrind 3.19 cannot read DWARF 5; build C targets with `-Xcc -gdwarf-4` (docs/your-own-store.md)"
            : ""
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
