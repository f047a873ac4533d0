import ArgumentParser
import Foundation
import PersistenceBench
import Reports

struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Judge this build: its counters against a counted baseline, its time against a base revision.",
        discussion: """
            --counters BASELINE judges what no machine changes (instructions, allocations, flushes, writes per \
            operation, bytes on disk, digests) against a committed counted run (`run --count`), made on any host: \
            it counts the baseline's matrix now into --out (or reads --current). --base REV judges time: it builds \
            REV (release, in a git worktree under .build/check-base/, kept between checks) and times REV's cells \
            and this build's in turn on this machine, --repetitions each, into --out/base and --out/current, \
            and times again what that round finds slower (its stores, twice the repetitions, this build first, \
            into --out/confirmation): a regression is what both rounds find slower. `--base HEAD` on an \
            unchanged tree is the false-alarm check. Writes a Markdown summary to --summary \
            (default: check.md in --out; appended to $GITHUB_STEP_SUMMARY when that is set). Exit status: 0 when \
            nothing regressed, 1 on a regression, 2 on bad input.
            """)

    @Option(
        help: ArgumentHelp(
            "A counted baseline (`run --count`; a directory or its results.json): judge this build's instructions, "
                + "allocations, flushes, writes, bytes on disk and digests against it.", valueName: "baseline"))
    var counters: String?

    @Option(
        help: "With --counters: a finished counted run to judge (directory or results.json) instead of counting now.")
    var current: String?

    @Option(
        help: ArgumentHelp(
            "A git revision (HEAD~1, a branch, a commit) to time this build against on this machine.",
            valueName: "revision"))
    var base: String?

    @Option(help: "With --base: the base revision's persistbench, already built, instead of building it.")
    var baseTool: String?

    @OptionGroup(title: "With --base") var matrix: MatrixOptions<CheckDefaults>

    @Option(help: "Where the runs made now are written.")
    var out: String = "results/check"

    @Option(help: "Where the Markdown summary is written. Default: check.md in the current run's directory.")
    var summary: String?

    func validate() throws {
        guard (counters == nil) != (base == nil && baseTool == nil) else {
            throw ValidationError("name one of --counters and --base")
        }
        if let counters {
            let base = try badInput { try RunResults.load(named: counters) }
            guard base.configuration.counted == true else {
                throw ValidationError("--counters \(counters) is not a counted run (made without `run --count`)")
            }
            if current == nil { _ = try RunSession(recorded: base.configuration, of: "the baseline's matrix") }
        } else {
            guard current == nil else { throw ValidationError("--current goes with --counters, not --base") }
            if let baseTool, !FileManager.default.isExecutableFile(atPath: baseTool) {
                throw ValidationError("--base-tool \(baseTool) is not an executable")
            }
            _ = try matrix.matrix()
        }
    }

    /// The current run's directory: --current's (or the directory of its results.json), else --out.
    private var currentDirectory: URL {
        guard let current else { return URL(fileURLWithPath: out) }
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: current, isDirectory: &isDirectory)
        let url = URL(fileURLWithPath: current)
        return exists && isDirectory.boolValue ? url : url.deletingLastPathComponent()
    }

    private var summaryURL: URL {
        summary.map { URL(fileURLWithPath: $0) } ?? currentDirectory.appendingPathComponent("check.md")
    }

    func run() throws {
        if current == nil { try OutputPath.requireDirectory(out, option: "--out") }
        try OutputPath.requireFile(summaryURL.path, option: summary == nil ? "the summary (check.md)" : "--summary")
        let verdict = CheckVerdict(summary: summaryURL)
        let passed: Bool
        if let counters {
            let baseline = try RunResults.load(named: counters)
            let now =
                try current.map { try RunResults.load(named: $0) }
                ?? RunSession(recorded: baseline.configuration, of: "the baseline's matrix").count(
                    output: currentDirectory, jobs: Self.countingJobs)
            passed = try verdict.counters(
                now, against: baseline, labels: Sides(base: counters, current: current ?? out))
        } else {
            let (executables, labels) = try BaseBuild.sides(revision: base, baseTool: baseTool) { print($0) }
            passed = try verdict.time(
                try matrix.matrix(), executables: executables, labels: labels, output: URL(fileURLWithPath: out))
        }
        if !passed { throw ExitCode.failure }
    }

    /// Processes counting at once: counts do not depend on what else the machine runs.
    static let countingJobs = 2
}

/// `check --base`'s defaults: the default run's stores on the CRUD workloads at 10k, 5 repetitions a side.
enum CheckDefaults: MatrixDefaults {
    static let workloads = TimeComparison.defaultWorkloads
    static let scales = "10k"
    /// A rank test of fewer repetitions a side cannot reach p ≤ 0.01 (5 and 5: 1/252 at best).
    static let repetitions = 5
    static let minimumRepetitions = (count: 5, reason: ", so that the rank test can tell a change from noise")
    static let timeBox = "100ms"
    static let timeBoxHelp = "The time box of a cell's first run, whose step count every later run of the cell does."
}
