import Foundation
import PersistenceBench
import Testing

@testable import PersistBenchTool

/// Bad input, parsed (and where the check is the command's own, run) in this process: every command answers it
/// with exit status 2 and one line naming what was wrong (`PersistBench.answer(to:)`), never a crash.
@Suite struct BadInputTests {
    @Test(
        arguments: [
            (
                ["run", "--memory-limit", "1KiB"],
                "invalid --memory-limit '1KiB': a cell's process needs more than 16.0 MiB"
            ),
            (["run", "--resume", "/nonexistent-dir"], "cannot resume '/nonexistent-dir': no such directory"),
            (["run", "--time-box", "never", "--count"], "invalid --time-box 'never'"),
            (["verify", "--store", "default", "/tmp"], "--store names one store, not the 8 of 'default'"),
            (["crash", "--stores", "memory"], "memory promises nothing to check"),
            (["crash", "--stores", "nosuch"], "unknown store 'nosuch'"),

            (["run", "--stores", "sqlite,nosuch"], "unknown store 'nosuch'"),
            (["run", "--workloads", "scan,teleport"], "unknown workload 'teleport'"),
            (["run", "--scales", "10k,10q"], "invalid --scales '10k,10q': '10q' is not one: use a record count"),
            (["run", "--scales", "0"], "invalid --scales '0': use a record count"),
            (["run", "--repetitions", "0"], "invalid --repetitions 0"),
            (["run", "--time-budget", "soon"], "invalid --time-budget 'soon'"),
            (["run", "--memory-budget", "lots"], "invalid --memory-budget 'lots'"),
            (["run", "--time-box", "never"], "invalid --time-box 'never'"),
            (["run", "--skip-stores", "sqlite,nosuch"], "unknown store 'nosuch'"),
            (["run", "--stores", "sqlite", "--skip-stores", "sqlite"], "--skip-stores leaves no store to run"),
            (["report", "/nonexistent-dir"], "no results.json in '/nonexistent-dir'"),
            (["report", "/tmp", "--format", "md,pdf"], "unknown format 'pdf'"),
            (["frobnicate"], "Unexpected argument 'frobnicate'"),
            (["keys", "--workload", "insert", "--scale", "1k"], "'insert' is not a workload whose keys are drawn"),
            (["keys", "--workload", "get-zipfian", "--scale", "lots"], "invalid --scale 'lots': use a record count"),
            (["keys", "--workload", "ycsb-a", "--scale", "1k", "--count", "0"], "--count must be at least 1, not 0"),
            (["run", "--out", "/dev/null/x"], "cannot write to --out '/dev/null/x': Not a directory"),
            (["crash", "--out", "/dev/null/x"], "cannot write to --out '/dev/null/x': Not a directory"),
            (
                ["check", "--counters", "results/counter-baseline", "--summary", "/dev/null/x/check.md"],
                "cannot write to --summary '/dev/null/x/check.md': Not a directory"
            ),
            (
                ["check", "--counters", "results/counter-baseline", "--out", "/dev/null/x"],
                "cannot write to --out '/dev/null/x': Not a directory"
            ),
            (
                [
                    "check", "--counters", "results/counter-baseline", "--current", "results/counter-baseline",
                    "--summary",
                    "/tmp",
                ],
                "cannot write to --summary '/tmp': it is a directory"
            ),
            (["check", "--counters", "results/ci-baseline"], "is not a counted run (made without `run --count`)"),
            (["run", "--jobs", "2"], "--jobs goes with --count"),
            (
                ["run", "--workloads", "get-readers", "--readers", "1,0"],
                "invalid --readers '1,0': use thread counts from 1 to 64"
            ),
            (["run", "--shard", "3/2"], "invalid --shard '3/2': use K/N with 1 ≤ K ≤ N"),
            (
                ["run", "--resume", "results/ci-baseline", "--estimate-from", "results/ci-baseline"],
                "--estimate-from goes with --dry-run when resuming"
            ),
            (
                ["run", "--memory-limit", "lots"],
                "invalid --memory-limit 'lots': use a size from 16.0 MiB such as 512MiB or 8GiB"
            ),
            (
                ["run", "--single-repetition-above", "big"],
                "invalid --single-repetition-above 'big': use a record count"
            ),
            (
                ["run", "--workloads", "insert", "--scales", "10k", "--shard", "1/2"],
                "has 1 (workload, scale) group(s)"
            ),
            (["merge", "results/counter-baseline", "--out", "/tmp/x"], "is not a shard: it was run without --shard"),
            (["merge", "no-such-shard", "--out", "/tmp/x"], "no such file or directory: 'no-such-shard'"),
            (
                ["check", "--base", "HEAD", "--counters", "results/counter-baseline"],
                "name one of --counters and --base"
            ),
            (["check", "--base", "HEAD", "--repetitions", "3"], "invalid --repetitions 3: at least 5"),
            (["check", "--base", "HEAD", "--stores", "nosuch"], "unknown store 'nosuch'"),
            (["check", "--base", "no-such-revision-here"], "unknown revision 'no-such-revision-here'"),
            (["compare", "results/counter-baseline", "results/ci-baseline"], "one run is counted"),
            (
                ["export", "--format", "github-action-benchmark", "--run", "results/ci-baseline", "/dev/null/x.json"],
                "cannot write to the export file '/dev/null/x.json': /dev/null is not a directory"
            ),
        ])
    func badInputIsRejectedWithItsName(arguments: [String], message: String) throws {
        let (status, line) = try #require(answer(to: arguments), "\(arguments) was accepted")
        #expect(status == 2, "\(arguments): status \(status)")
        #expect(line.contains(message), "\(arguments): \(line)")
        #expect(!line.contains("\n"))
    }

    /// `check --base` builds its configuration from its matrix options with every other setting at the core's
    /// defaults, as `run` given the same options makes it: the two must not drift apart.
    @Test func checksMatrixHasRunsDefaults() throws {
        let run = try Run.parse(["--workloads", "get,insert-each", "--scales", "10k", "--repetitions", "5"])
        let check = try MatrixOptions<RunDefaults>.parse([
            "--workloads", "get,insert-each", "--scales", "10k", "--repetitions", "5",
        ])
        #expect(try run.parsedMatrix().configuration == check.matrix().configuration)
    }
}

/// How the tool answers `arguments`, parsed and run in this process: its exit status and line, or nil if it
/// accepted them.
func answer(to arguments: [String]) -> (status: Int32, line: String)? {
    testFixtureCache.touch()
    do {
        var command = try PersistBench.parseAsRoot(arguments)
        try command.run()
        return nil
    } catch {
        return PersistBench.answer(to: error)
    }
}
