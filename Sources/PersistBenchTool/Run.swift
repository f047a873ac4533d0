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
            (or any DNF with --strict or --count), 2 on bad input. Every option in full: docs/commands.md.
            """)

    @OptionGroup var matrix: MatrixOptions<RunDefaults>

    @Option(
        parsing: .unconditional, help: "Run the cells at scales above this one once (a sweep's largest): 1M.",
        transform: ScaleOption.parse)
    var singleRepetitionAbove: ScaleOption?

    @Option(parsing: .unconditional, help: "Seed of the data set and key sequences.")
    var seed: UInt64 = RunConfiguration.defaultSeed

    @Option(parsing: .unconditional, help: "Records per write transaction in bulk writes.")
    var batchSize: Int = RunConfiguration.defaultBatchSize

    @Option(parsing: .unconditional, help: "Reads per second of read-while-import's open-loop reader.")
    var readRate: Double = WorkloadContext.defaultReadRate

    @Option(
        parsing: .unconditional, help: "Levels of reader threads of the readers workloads: 1,2,4,8.",
        transform: ReaderLevels.parse)
    var readers: ReaderLevels?

    @Option(help: "The records' shape: item, wide, document, attachment, event or a JSON shape file (docs/shapes.md).")
    var shape = "item"

    @Option(help: "Output directory for results.json, results.csv and report.md: new, empty, or an earlier run's.")
    var out: String = "results/latest"

    @Flag(help: replaceHelp)
    var replace = false

    @Flag(help: "Run even when the disk the run needs exceeds the free space of --out (and of --fixtures).")
    var ignoreFreeSpace = false

    @Option(
        parsing: .unconditional,
        help: .typed("Wall-clock budget per cell process: 90s, 10m, 1h.", default: RunDefaults.timeBudget),
        transform: DurationOption.parse)
    var timeBudget = RunDefaults.timeBudget

    @Option(
        parsing: .unconditional,
        help: .typed(
            "Wall-clock budget of a fixture's load (untimed): 30m, 2h.", default: RunDefaults.fixtureTimeBudget),
        transform: DurationOption.parse)
    var fixtureTimeBudget = RunDefaults.fixtureTimeBudget

    @Option(
        parsing: .unconditional,
        help: .typed(
            "The longest a budget workload goes on to reach \(TimeBox.budgetSamples) samples under a time box: 20s.",
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
            "Run each cell in a memory cgroup of this limit, page cache included (root): 24MiB.", valueName: "size"),
        transform: MemorySize.parse)
    var memoryLimit: MemorySize?

    @Option(help: ArgumentHelp("Where fixtures are kept and reused between runs, or 'none'.", valueName: "DIR|none"))
    var fixtures = FixtureCache.Place.defaultDirectory

    @Option(
        parsing: .unconditional,
        help: .typed(
            "The most --fixtures may take: the least recently used are removed past it.",
            default: RunDefaults.fixturesCap, valueName: "size"),
        transform: MemorySize.parse)
    var fixturesCap = RunDefaults.fixturesCap

    @Flag(help: "Keep each store's files from the last repetition under OUT/stores/<store>/<workload>-<scale>/.")
    var keepStores = false

    @Flag(help: "Count each cell's instructions, allocations, flushes and writes (valgrind) instead of timing it.")
    var count = false

    @Option(parsing: .unconditional, help: "With --count: processes counting at once, each a share of the stores (2).")
    var jobs: Int?

    @Flag(help: "Exit 1 if any cell did not finish (DNF), not only on digest mismatches and errors.")
    var strict = false

    @Option(
        help: ArgumentHelp(
            "Run part K of N of the matrix (`merge` joins the parts), cut by --estimate-from's times if given.",
            valueName: "K/N"))
    var shard: String?

    @Option(help: ArgumentHelp("Continue the interrupted run in DIR with its own configuration.", valueName: "DIR"))
    var resume: String?

    @Flag(help: "Print the plan (its groups, cells and an estimate of their time) and run nothing.")
    var dryRun = false

    @Option(
        help: ArgumentHelp(
            "An earlier run whose cells' times estimate this run's (at its start and as it goes) and cut its shards.",
            valueName: "DIR"))
    var estimateFrom: [String] = []

    func validate() throws {
        if resume != nil { try refuseMatrixOptions() }
        guard estimateFrom.isEmpty || resume == nil || dryRun else {
            throw ValidationError("--estimate-from goes with --dry-run when resuming (a resume keeps its run's cut)")
        }
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
        var settings = RunSettings(
            seed: seed, batchSize: batchSize, readRate: readRate, readers: readers, shape: shape,
            timeBudget: timeBudget, fixtureTimeBudget: fixtureTimeBudget, floorTime: floorTime,
            memoryBudget: memoryBudget, memoryLimit: memoryLimit, keepStores: keepStores, counted: count, jobs: jobs,
            singleRepetitionAbove: singleRepetitionAbove, shard: shard, fixtures: fixtures, fixturesCap: fixturesCap)
        settings.estimates = try estimateFrom.map { try RunResults.load(named: $0).cells }
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
        "Stop a cell's loop of steps after this long, or 'none'; the fewest steps a first cell did is its group's count."
}
