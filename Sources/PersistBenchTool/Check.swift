import ArgumentParser
import Foundation
import PersistenceBench
import Reports
import StoreCatalog

struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Judge this build: its counters against a counted baseline, its time against a base revision.",
        discussion: """
            --counters judges what no machine changes (instructions, allocations, flushes, writes, faults, digests) \
            against a counted run (`run --count`); --base REV builds REV and times its cells and this build's in \
            turn on this machine, then times again what that round finds slower. Writes a Markdown summary \
            (--summary). Exit status: 0 when nothing regressed, 1 on a regression, 2 on bad input. In full: \
            docs/regression-checks.md.
            """)

    @Option(
        help: ArgumentHelp("A counted baseline (`run --count`) to judge this build's counts by.", valueName: "baseline")
    )
    var counters: [String] = []

    @Option(
        help: ArgumentHelp(
            "With --counters: a finished counted run to judge instead of counting now.", valueName: "run"))
    var current: [String] = []

    @Flag(help: "With --counters: let a counter better than the baseline beyond its band pass.")
    var betterExpected = false

    @Option(help: ArgumentHelp("A git revision to time this build against on this machine.", valueName: "revision"))
    var base: String?

    @Option(help: "With --base: the base revision's persistbench, already built, instead of building it.")
    var baseTool: String?

    @Option(
        parsing: .unconditional,
        help: .typed(
            "With --base: the slowdown across a store's cells the check must be able to catch.",
            default: CheckDefaults.detect, valueName: "percent"),
        transform: Slowdown.parse)
    var detect = CheckDefaults.detect

    @Option(
        parsing: .unconditional,
        help: .typed(
            "With --base: the most time repetitions added to reach --detect take.", default: CheckDefaults.powerTime,
            valueName: "duration"),
        transform: DurationOrZero.parse)
    var powerTime = CheckDefaults.powerTime

    @OptionGroup(title: "With --base") var matrix: MatrixOptions<CheckDefaults>

    @Option(help: "Where the runs made now are written.")
    var out: String = "results/check"

    @Flag(help: replaceHelp)
    var replace = false

    @Option(help: "Where the Markdown summary is written. Default: check.md in the current run's directory.")
    var summary: String?

    func validate() throws {
        guard counters.isEmpty != (base == nil && baseTool == nil) else {
            throw ValidationError("name one of --counters and --base")
        }
        if counters.isEmpty {
            guard current.isEmpty else { throw ValidationError("--current goes with --counters, not --base") }
            guard !betterExpected else { throw ValidationError("--better-expected goes with --counters, not --base") }
            if let baseTool, !FileManager.default.isExecutableFile(atPath: baseTool) {
                throw ValidationError("--base-tool \(baseTool) is not an executable")
            }
        }
    }

    func run() throws {
        // The names resolved once, before --out is claimed: a baseline's matrix or a --base matrix this build cannot
        // run is bad input that writes nothing.
        let check = counters.isEmpty ? nil : try CounterCheck(baselines: counters, current: current, out: out)
        let recounted =
            try current.isEmpty
            ? (check?.baselines ?? []).map { baseline -> RunSession in
                var session = try RunSession(
                    recorded: baseline.results.configuration, of: "the baseline's matrix (\(baseline.path))")
                // Loaded in the scratch space: a baseline names the cache of the machine that made it.
                session.configuration.fixtureCache = nil
                return session
            } : []
        let timed = counters.isEmpty ? try matrix.matrix() : nil
        let claim =
            current.isEmpty
            ? try OutputDirectory(
                out, option: "--out", use: .fresh(replacing: replace), owned: check?.ownedNames ?? [])
            : nil
        defer { claim?.release() }
        let summary =
            summary.map { URL(fileURLWithPath: $0) }
            ?? CounterCheck.currentDirectory(current: current, out: out).appendingPathComponent("check.md")
        try OutputPath.requireFile(summary.path, option: self.summary == nil ? "the summary (check.md)" : "--summary")
        let verdict = CheckVerdict(summary: summary)
        let passed: Bool
        if let timed {
            let (executables, labels) = try BaseBuild.sides(revision: base, baseTool: baseTool) { print($0) }
            let check = try timed.timeCheck(
                executables: executables, output: URL(fileURLWithPath: out), target: detect.ratio,
                budgetSeconds: powerTime.seconds)
            passed = try verdict.time(check, labels: labels, repetitions: timed.configuration.repetitions)
        } else if let check {
            passed = try verdict.counters(
                try check.now(sessions: recounted, jobs: Self.countingJobs), against: try check.baseline(),
                labels: check.labels, betterExpected: betterExpected, runs: check.runs,
                schedulingDependent: StoreCatalog.schedulingDependent)
        } else {
            passed = true
        }
        if !passed { throw ExitCode.failure }
    }

    /// Processes counting at once: counts do not depend on what else the machine runs.
    static let countingJobs = 2
}

/// `check --base`'s defaults: the default run's stores on the CRUD workloads at 10k, 5 repetitions a side.
enum CheckDefaults: MatrixDefaults {
    static let workloads = TimeComparison.defaultWorkloads
    static let scales = ScaleList([Scale(records: 10_000)])
    /// A rank test of fewer repetitions a side cannot reach p ≤ 0.01 (5 and 5: 1/252 at best).
    static let repetitions = 5
    static let minimumRepetitions = (count: 5, reason: ", so that the rank test can tell a change from noise")
    static let timeBox = DurationOrNone(seconds: 0.1)
    static let detect = Slowdown(percent: 10)
    static let powerTime = DurationOrZero(seconds: 240)
    static let timeBoxHelp = "The time box of a cell's first run, whose step count every later run of the cell does."
}
