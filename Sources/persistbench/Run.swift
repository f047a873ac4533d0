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
            (or any DNF with --strict), 2 on bad input.
            """)

    @Option(
        help:
            "Comma-separated stores (see `persistbench list`), or all. Default: one of each strategy (sqlite, grdb, orm, orm+swiftdata, lmdb, packed, json, memory); their variants when named."
    )
    var stores: String?

    @Option(help: "Comma-separated stores to leave out of --stores (or of the default).")
    var skipStores: String?

    @Option(help: "Comma-separated workloads. Default: the CRUD workloads.")
    var workloads: String?

    @Option(help: "Comma-separated scales in records: 10k, 100k, 1M, 1e6, 1000000.")
    var scales: String = "10k,100k"

    @Option(help: "Repetitions of every cell.")
    var repetitions: Int = RunConfiguration.defaultRepetitions

    @Option(
        help: ArgumentHelp(
            "Run a single repetition of the cells at scales above this one (a sweep's largest scales): 1M.",
            valueName: "scale"))
    var singleRepetitionAbove: String?

    @Option(help: "Seed of the data set and key sequences.")
    var seed: UInt64 = RunConfiguration.defaultSeed

    @Option(help: "Records per write transaction in bulk writes.")
    var batchSize: Int = RunConfiguration.defaultBatchSize

    @Option(help: "Reads per second of read-while-import's open-loop reader.")
    var readRate: Double = WorkloadContext.defaultReadRate

    @Option(help: "Output directory for results.json, results.csv and report.md.")
    var out: String = "results/latest"

    @Option(help: "Wall-clock budget per cell process: 90s, 10m, 1h.")
    var timeBudget: String = "10m"

    // Longer than a cell's: a 10M load of grdb takes over 10 minutes on a 2-core VM, and under the cell's budget its
    // 10M cells would be DNF for their setup, not for their work.
    @Option(help: "Wall-clock budget of a fixture's load (untimed setup, once per store, fixture and scale): 30m, 2h.")
    var fixtureTimeBudget: String = "1h"

    @Option(
        help: ArgumentHelp(
            "Stop a cell's loop of steps (insert-each, get, get-warm, get-zipfian, get-batch, page, write-then-page, "
                + "search) once this much time has passed (at least \(TimeBox.minimumSteps) done; search: "
                + "\(SearchWorkload.minimumKeystrokes) keystrokes; a budget workload \(TimeBox.budgetSamples), see "
                + "--floor-time), or 'none': 1s, 20s, 1m. The fewest "
                + "steps a first-repetition cell did becomes its (workload, scale)'s count: every cell does exactly "
                + "that many (a cell that did more runs again), so all are measured and compared on the same steps.",
            valueName: "duration"))
    var timeBox = "\(Int(TimeBox.defaultSeconds * 1000))ms"

    @Option(
        help: ArgumentHelp(
            "Under a time box, a workload judged against an app's budget (insert-each, page, search) does at least "
                + "\(TimeBox.budgetSamples) steps (or all it has), so that its p99 rests on that many samples; a store "
                + "that has not reached them after this long stops on its own time, with its own count, and does "
                + "not lower the other stores': 20s, 1m.",
            valueName: "duration"))
    var floorTime = "\(Int(TimeBox.defaultFloorSeconds))s"

    @Option(help: "Resident-memory budget per cell process: 512MiB, 8GiB.")
    var memoryBudget: String = "8GiB"

    @Option(
        help: ArgumentHelp(
            "Run each cell's process in a memory cgroup of this limit, page cache included (root, cgroup v1 or v2): "
                + "a mapped store pays for what the cap evicts, a heap-bound one is killed at it (DNF); swap is limited "
                + "too. Unlike Apple's footprint limit, the cap charges clean file pages read. Each cell's files start "
                + "out of the page cache (checked). 24MiB, 120MiB.",
            valueName: "size"))
    var memoryLimit: String?

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
        _ = try parsed()
        guard estimateFrom.isEmpty || dryRun else { throw ValidationError("--estimate-from goes with --dry-run") }
        for source in estimateFrom { _ = try ResultsFile.load(source) }
    }

    /// The run's configuration, or a ValidationError naming the bad value.
    func parsed() throws -> RunConfiguration {
        let skipped = try list(skipStores, of: "store", known: allStores.map(\.name)) ?? []
        let storeNames =
            (stores == "all"
            ? allStores.map(\.name)
            : try list(stores, of: "store", known: allStores.map(\.name))
                ?? allStores.filter(\.inDefaultRun).map(\.name))
            .filter { !skipped.contains($0) }
        guard !storeNames.isEmpty else { throw ValidationError("--skip-stores leaves no store to run") }
        let workloadNames =
            try list(workloads, of: "workload", known: WorkloadCatalog.all.map(\.name))
            ?? WorkloadCatalog.defaultMatrix.map(\.name)
        var parsedScales: [Scale] = []
        for text in scales.split(separator: ",", omittingEmptySubsequences: false).map(String.init) {
            guard let scale = Scale(parsing: text) else {
                throw ValidationError(
                    "invalid scale '\(text)': use a positive record count such as 10k, 1M, 1e6 or 1000000")
            }
            if !parsedScales.contains(scale) { parsedScales.append(scale) }
        }
        guard repetitions >= 1 else { throw ValidationError("invalid --repetitions \(repetitions): at least 1") }
        if let jobs {
            guard count else { throw ValidationError("--jobs goes with --count: timed cells run one at a time") }
            guard jobs >= 1 else { throw ValidationError("invalid --jobs \(jobs): at least 1") }
        }
        guard batchSize >= 1 else { throw ValidationError("invalid --batch-size \(batchSize): at least 1") }
        guard readRate > 0, readRate <= 1_000_000 else {
            throw ValidationError("invalid --read-rate \(readRate): reads per second, more than 0 and at most 1000000")
        }
        guard let seconds = Quantity.seconds(parsing: timeBudget) else {
            throw ValidationError("invalid --time-budget '\(timeBudget)': use a duration such as 90s, 10m or 1h")
        }
        var boxSeconds: Double?
        if timeBox != "none" && !count {
            guard let seconds = Quantity.seconds(parsing: timeBox) else {
                throw ValidationError("invalid --time-box '\(timeBox)': use a duration such as 20s or 1m, or none")
            }
            boxSeconds = seconds
        }
        guard let floorSeconds = Quantity.seconds(parsing: floorTime), floorSeconds > 0 else {
            throw ValidationError("invalid --floor-time '\(floorTime)': use a duration such as 20s or 1m")
        }
        guard let bytes = Quantity.bytes(parsing: memoryBudget) else {
            throw ValidationError("invalid --memory-budget '\(memoryBudget)': use a size such as 512MiB or 8GiB")
        }
        guard let fixtureSeconds = Quantity.seconds(parsing: fixtureTimeBudget) else {
            throw ValidationError(
                "invalid --fixture-time-budget '\(fixtureTimeBudget)': use a duration such as 30m or 2h")
        }
        var configuration = RunConfiguration(
            stores: storeNames, workloads: workloadNames, scales: parsedScales, repetitions: repetitions, seed: seed,
            batchSize: batchSize, timeBudgetSeconds: seconds, memoryBudgetBytes: bytes, keepStores: keepStores,
            readRate: readRate, timeBoxSeconds: boxSeconds, counted: count ? true : nil)
        configuration.fixtureTimeBudgetSeconds = fixtureSeconds
        if boxSeconds != nil { configuration.floorSeconds = floorSeconds }
        if let singleRepetitionAbove {
            guard let scale = Scale(parsing: singleRepetitionAbove) else {
                throw ValidationError(
                    "invalid --single-repetition-above '\(singleRepetitionAbove)': use a record count such as 1M")
            }
            configuration.singleRepetitionAbove = scale
        }
        if let memoryLimit {
            guard let bytes = Quantity.bytes(parsing: memoryLimit) else {
                throw ValidationError("invalid --memory-limit '\(memoryLimit)': use a size such as 24MiB or 120MiB")
            }
            if case .failure(let reason) = MemoryCgroup.parent() { throw ValidationError(reason.description) }
            configuration.memoryLimitBytes = bytes
        }
        if let shard {
            guard let parsed = Shard(parsing: shard) else {
                throw ValidationError("invalid --shard '\(shard)': use K/N with 1 ≤ K ≤ N, such as 1/4")
            }
            let groups = Shard.groups(of: configuration).count
            guard parsed.count <= groups else {
                throw ValidationError(
                    "invalid --shard \(shard): the matrix has \(groups) (workload, scale) group(s), each run whole by "
                        + "one part, so at most \(groups) parts")
            }
            configuration.shard = parsed
        }
        return configuration
    }

    private func list(_ text: String?, of what: String, known: [String]) throws -> [String]? {
        guard let text else { return nil }
        var names: [String] = []
        for name in text.split(separator: ",", omittingEmptySubsequences: false).map(String.init) {
            guard known.contains(name) else {
                throw ValidationError("unknown \(what) '\(name)'; known: \(known.joined(separator: ", "))")
            }
            if !names.contains(name) { names.append(name) }
        }
        return names
    }

    func run() throws {
        if dryRun {
            try printPlan()
            return
        }
        try OutputPath.requireDirectory(resume ?? out, option: resume == nil ? "--out" : "--resume")
        let results: RunResults
        if let resume {
            let directory = URL(fileURLWithPath: resume)
            let interrupted: RunResults
            do { interrupted = try RunResults.load(from: directory.appendingPathComponent("results.json")) } catch {
                throw ValidationError("cannot resume '\(resume)': \(error)")
            }
            results = try Matrix(interrupted.configuration, of: "the run to resume").run(
                output: directory, resuming: interrupted)
        } else if count {
            results = try Matrix(try parsed(), of: "the run").count(output: URL(fileURLWithPath: out), jobs: jobs ?? 2)
        } else {
            results = try Matrix(try parsed(), of: "the run").run(output: URL(fileURLWithPath: out))
        }
        if results.failed(strict: strict) { throw ExitCode.failure }
    }
}

extension RunResults {
    /// A digest mismatch or a cell error fails a run; with `strict`, so does a cell that did not finish.
    func failed(strict: Bool) -> Bool {
        digestChecks.contains { !$0.agreed } || cells.contains { $0.status == .error }
            || (strict && cells.contains { $0.status == .dnf })
    }
}

enum Executable {
    /// This tool's own executable, which the runner starts for every cell.
    static func path() throws -> String {
        let path = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw ValidationError("cannot find this executable at /proc/self/exe")
        }
        return path
    }
}
