import ArgumentParser
import Foundation
import PersistenceBench
import Reports

struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run a matrix of cells (store × workload × scale × repetition), each in its own process.",
        discussion: """
            With no options: every store (not their variants), the CRUD workloads, scales 10k and 100k, 3 repetitions, into \
            results/latest/. Exit status: 0 when every digest agrees, 1 on a digest mismatch or a cell error \
            (or any DNF with --strict or --count), 2 on bad input.
            """)

    @OptionGroup var matrix: MatrixOptions<RunDefaults>

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Run a single repetition of the cells at scales above this one (a sweep's largest scales): 1M.",
            valueName: "scale"),
        transform: ScaleOption.parse)
    var singleRepetitionAbove: ScaleOption?

    @Option(parsing: .unconditional, help: "Seed of the data set and key sequences.")
    var seed: UInt64 = RunConfiguration.defaultSeed

    @Option(parsing: .unconditional, help: "Records per write transaction in bulk writes.")
    var batchSize: Int = RunConfiguration.defaultBatchSize

    @Option(parsing: .unconditional, help: "Reads per second of read-while-import's open-loop reader.")
    var readRate: Double = WorkloadContext.defaultReadRate

    @Option(
        parsing: .unconditional,
        help: "Comma-separated levels of reader threads of get-, page- and search-readers: 1,2,4,8.",
        transform: ReaderLevels.parse)
    var readers: ReaderLevels?

    @Option(
        help: ArgumentHelp(
            "The records' shape: item (the default: `Item`, every workload), a preset (wide, document, attachment, "
                + "event) or a JSON shape file (docs/shapes.md). A shape other than item runs insert, insert-each, "
                + "get, scan, update and page (the default list) over its records.", valueName: "shape"))
    var shape = "item"

    @Option(help: "Output directory for results.json, results.csv and report.md: new, empty, or an earlier run's.")
    var out: String = "results/latest"

    @Flag(help: replaceHelp)
    var replace = false

    @Flag(
        help: ArgumentHelp(
            "Run even when the estimate of the disk the run needs (a fixture of each store at the largest scale, "
                + "about \(Int(DiskEstimate.bytesPerItem)) bytes an item, and a cell's copy) exceeds the free space of "
                + "--out (or of --fixtures, for the fixtures)."
        ))
    var ignoreFreeSpace = false

    @Option(
        parsing: .unconditional,
        help: .typed("Wall-clock budget per cell process: 90s, 10m, 1h.", default: RunDefaults.timeBudget),
        transform: DurationOption.parse)
    var timeBudget = RunDefaults.timeBudget

    // Longer than a cell's (`RunConfiguration.defaultFixtureTimeBudgetSeconds`).
    @Option(
        parsing: .unconditional,
        help: .typed(
            "Wall-clock budget of a fixture's load (untimed setup, once per store, fixture and scale): 30m, 2h.",
            default: RunDefaults.fixtureTimeBudget),
        transform: DurationOption.parse)
    var fixtureTimeBudget = RunDefaults.fixtureTimeBudget

    @Option(
        parsing: .unconditional,
        help: .typed(
            "Under a time box, a workload judged against an app's budget (insert-each, page, search) does at least "
                + "\(TimeBox.budgetSamples) steps (or all it has), so that its p99 rests on that many samples; a store "
                + "that has not reached them after this long stops on its own time, with its own count, and does "
                + "not lower the other stores': 20s, 1m.",
            default: RunDefaults.floorTime, valueName: "duration"),
        transform: DurationOption.parse)
    var floorTime = RunDefaults.floorTime

    @Option(
        parsing: .unconditional,
        help: .typed("Resident-memory budget per cell process: 512MiB, 8GiB.", default: RunDefaults.memoryBudget),
        transform: MemorySize.parse)
    var memoryBudget = RunDefaults.memoryBudget

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Run each cell's process in a memory cgroup of this limit, page cache included (root, cgroup v1 or v2): "
                + "a mapped store pays for what the cap evicts, a heap-bound one is killed at it (DNF); swap is limited "
                + "too. Unlike Apple's footprint limit, the cap charges clean file pages read. Each cell's files start "
                + "out of the page cache (checked). 24MiB, 120MiB.",
            valueName: "size"),
        transform: MemorySize.parse)
    var memoryLimit: MemorySize?

    @Option(
        help: ArgumentHelp(
            "Where fixtures are kept between runs: each store's fixture at a scale built once (the items fixture "
                + "checked by the store's integrity check), and reused while its store, engine, scale, seed, shape, "
                + "batch size and build are the same (its files' digest checked first); runs on one machine (shards) "
                + "share it. 'none': built in --out's scratch space and removed. A resume may name another.",
            valueName: "DIR|none"))
    var fixtures = FixtureCache.Place.defaultDirectory

    @Option(
        parsing: .unconditional,
        help: .typed(
            "The most --fixtures' entries may take: the least recently used are removed past it.",
            default: RunDefaults.fixturesCap, valueName: "size"),
        transform: MemorySize.parse)
    var fixturesCap = RunDefaults.fixturesCap

    @Flag(help: "Keep each store's files from the last repetition under OUT/stores/<store>/<workload>-<scale>/.")
    var keepStores = false

    @Flag(
        help: ArgumentHelp(
            "Count each cell instead of timing it: its instructions (under valgrind's callgrind), allocations, "
                + "flushes, write calls and bytes written, which no machine changes (`check --counters` judges "
                + "them). Every loop does \(CountingLauncher.steps) steps (or all, if fewer), without a clock. About "
                + "2 s a cell at 2k."))
    var count = false

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "With --count: processes counting at once, each a share of the stores (counts do not depend on what else "
                + "the machine runs; times would). Default: 2."))
    var jobs: Int?

    @Flag(help: "Exit 1 if any cell did not finish (DNF), not only on digest mismatches and errors.")
    var strict = false

    @Option(
        help: ArgumentHelp(
            "Run part K of N of the matrix, for runs split over machines (`merge` joins the parts): each (workload, "
                + "scale) group goes whole to one part, so stores are compared within one machine; every machine "
                + "given the same options cuts the same parts.", valueName: "K/N"))
    var shard: String?

    @Option(
        help: ArgumentHelp(
            "Continue the interrupted run in DIR: its own configuration, its finished cells kept and skipped.",
            valueName: "DIR"))
    var resume: String?

    @Flag(help: "Print the plan (its (workload, scale) groups, cells and an estimate of their time) and run nothing.")
    var dryRun = false

    @Option(
        help: ArgumentHelp(
            "With --dry-run: an earlier run (directory or results.json) whose cells' times estimate this run's. "
                + "Repeatable. (A run's progress lines estimate from its own cells.)", valueName: "DIR"))
    var estimateFrom: [String] = []

    func validate() throws {
        if resume != nil { try refuseMatrixOptions() }
        guard estimateFrom.isEmpty || dryRun else { throw ValidationError("--estimate-from goes with --dry-run") }
        for source in estimateFrom { _ = try badInput { try RunResults.load(named: source) } }
    }

    /// With `--resume`, the run's own configuration is the one resumed: an option that would change it is refused
    /// rather than ignored.
    private func refuseMatrixOptions() throws {
        let defaults = try Run.parse([])
        let unchanging = [
            "--matrix", "--resume", "--ignore-free-space", "--strict", "--dry-run", "--estimate-from", "--fixtures",
            "--fixtures-cap",
        ]
        let changed = (Self.options(matrix, changedFrom: defaults.matrix) + Self.options(self, changedFrom: defaults))
            .filter { !unchanging.contains($0) }
        guard changed.isEmpty else {
            throw ValidationError(
                "--resume continues a run with its own options: \(changed.joined(separator: ", ")) would change nothing "
                    + "(start a new run in another --out to change them)")
        }
    }

    /// The options (each property's name as `--kebab-case`) whose parsed value in `given` is not `defaults`'.
    private static func options<Options>(_ given: Options, changedFrom defaults: Options) -> [String] {
        zip(Mirror(reflecting: given).children, Mirror(reflecting: defaults).children).compactMap { given, defaults in
            guard let label = given.label, String(describing: given.value) != String(describing: defaults.value)
            else { return nil }
            return "--" + label.dropFirst().map { $0.isUppercase ? "-" + $0.lowercased() : String($0) }.joined()
        }
    }

    /// The run's matrix with its settings, or bad input naming the bad value.
    func parsedMatrix() throws -> RunSession {
        let settings = RunSettings(
            seed: seed, batchSize: batchSize, readRate: readRate, readers: readers, shape: shape,
            timeBudget: timeBudget, fixtureTimeBudget: fixtureTimeBudget, floorTime: floorTime,
            memoryBudget: memoryBudget, memoryLimit: memoryLimit, keepStores: keepStores, counted: count, jobs: jobs,
            singleRepetitionAbove: singleRepetitionAbove, shard: shard, fixtures: fixtures, fixturesCap: fixturesCap)
        let workloadsGiven = matrix.workloads != RunDefaults.workloads.joined(separator: ",")
        return try badInput { try matrix.matrix(counted: count).applying(settings, workloadsGiven: workloadsGiven) }
    }

    func run() throws {
        if dryRun {
            let interrupted = try resume.map { try RunResults.load(named: $0) }
            let session = try interrupted.map { try RunSession(recorded: $0.configuration, of: "the run to resume") }
            print(
                try (session ?? parsedMatrix()).plan(
                    estimatedFrom: try estimateFrom.map { try RunResults.load(named: $0).cells },
                    resuming: interrupted))
            return
        }
        let results: RunResults
        if let resume {
            var interrupted = try RunResults.interrupted(in: resume)
            // Where fixtures are kept changes no figure: a resume may name another place than the run did.
            if fixtures != FixtureCache.Place.defaultDirectory || fixturesCap != RunDefaults.fixturesCap {
                interrupted.configuration.fixtureCache = try badInput {
                    try FixtureCache.Place(option: fixtures, cap: fixturesCap)
                }
            }
            let claim = try OutputDirectory(resume, option: "--resume", use: .existing)
            defer { claim.release() }
            results = try RunSession(recorded: interrupted.configuration, of: "the run to resume").run(
                output: URL(fileURLWithPath: resume), resuming: interrupted)
        } else {
            let session = try parsedMatrix()
            // Before the claim, so that a run refused for its size creates nothing.
            if !ignoreFreeSpace {
                try DiskEstimate.requireRoom(for: session.configuration, in: URL(fileURLWithPath: out))
            }
            let claim = try OutputDirectory(out, option: "--out", use: .fresh(replacing: replace))
            defer { claim.release() }
            let output = URL(fileURLWithPath: out)
            results = try count ? session.count(output: output, jobs: jobs ?? 2) : session.run(output: output)
        }
        // A counted run is a baseline or a check's side: a cell it could not count guards nothing, so any DNF fails.
        if results.failed(strict: strict || count) { throw ExitCode.failure }
    }
}

/// `--replace`'s help, the same in every command that writes a new run.
let replaceHelp = ArgumentHelp(
    "Replace the earlier run in --out: every file it wrote (results, reports, charts, kept stores) is removed "
        + "first. Without it, a --out holding a run is refused.")

/// `run`'s defaults: the default matrix of one store of each strategy, at 10k and 100k.
enum RunDefaults: MatrixDefaults {
    static let workloads = WorkloadCatalog.defaultMatrix.map(\.name)
    static let scales = ScaleList([Scale(records: 10_000), Scale(records: 100_000)])
    static let repetitions = RunConfiguration.defaultRepetitions
    static let minimumRepetitions = (count: 1, reason: "")
    static let timeBox = DurationOrNone(seconds: TimeBox.defaultSeconds)
    static let timeBudget = DurationOption(seconds: RunConfiguration.defaultTimeBudgetSeconds)
    static let fixtureTimeBudget = DurationOption(seconds: RunConfiguration.defaultFixtureTimeBudgetSeconds)
    static let floorTime = DurationOption(seconds: TimeBox.defaultFloorSeconds)
    static let memoryBudget = MemorySize(bytes: RunConfiguration.defaultMemoryBudgetBytes)
    static let fixturesCap = MemorySize(bytes: FixtureCache.Place.defaultCapBytes)
    static let timeBoxHelp =
        "Stop a cell's loop of steps (insert-each, get, get-warm, get-zipfian, get-batch, page, write-then-page, "
        + "search) once this much time has passed (at least \(TimeBox.minimumSteps) done; search: "
        + "\(SearchWorkload.minimumKeystrokes) keystrokes; a budget workload \(TimeBox.budgetSamples), see "
        + "--floor-time), or 'none': 1s, 20s, 1m. The fewest "
        + "steps a first-repetition cell did becomes its (workload, scale)'s count: every cell does exactly "
        + "that many (a cell that did more runs again), so all are measured and compared on the same steps."
}
