import ArgumentParser
import PersistenceBench
import Reports
import StoreCatalog

/// What a command that runs a matrix starts from when an option is not given.
protocol MatrixDefaults {
    /// The workloads run when `--workloads` is not given.
    static var workloads: [String] { get }
    static var scales: ScaleList { get }
    static var repetitions: Int { get }
    /// The fewest repetitions the command accepts, and why.
    static var minimumRepetitions: (count: Int, reason: String) { get }
    static var timeBox: DurationOrNone { get }
    static var timeBoxHelp: String { get }
}

/// The options that choose a matrix (stores, workloads, scales, repetitions, time box): one group that `run` and
/// `check --base` share (`@OptionGroup`), each with its own defaults, and one validator per option.
struct MatrixOptions<Defaults: MatrixDefaults>: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Comma-separated stores (see `persistbench list`), or sets of them: "
                + StoreSet.allCases.map(\.rawValue).joined(separator: ", ")
                + ". Default: one of each strategy (the default set); variants when named."))
    var stores: String?

    @Option(help: "Comma-separated stores to leave out of --stores (or of the default).")
    var skipStores: String?

    @Option(help: "Comma-separated workloads (see `persistbench list`).")
    var workloads: String = Defaults.workloads.joined(separator: ",")

    @Option(
        parsing: .unconditional,
        help: .typed("Comma-separated scales in records: 10k, 100k, 1M, 1e6, 1000000.", default: Defaults.scales),
        transform: ScaleList.parse)
    var scales: ScaleList = Defaults.scales

    @Option(parsing: .unconditional, help: "Repetitions of every cell.")
    var repetitions: Int = Defaults.repetitions

    @Option(
        parsing: .unconditional, help: .typed(Defaults.timeBoxHelp, default: Defaults.timeBox, valueName: "duration"),
        transform: DurationOrNone.parse)
    var timeBox: DurationOrNone = Defaults.timeBox

    /// The stores to run, in the order named.
    func storeKinds() throws -> [StoreKind] {
        let skipped = try skipStores.map { list in try badInput { try StoreCatalog.stores(named: list) } } ?? []
        let kinds = try badInput { try StoreCatalog.stores(named: stores ?? StoreSet.default.rawValue) }.filter {
            kind in !skipped.contains { $0.name == kind.name }
        }
        guard !kinds.isEmpty else { throw ValidationError("--skip-stores leaves no store to run") }
        return kinds
    }

    func workloadList() throws -> [any Workload] { try badInput { try StoreCatalog.workloads(named: workloads) } }

    func repetitionCount() throws -> Int {
        let minimum = Defaults.minimumRepetitions
        guard repetitions >= minimum.count else {
            throw ValidationError("invalid --repetitions \(repetitions): at least \(minimum.count)\(minimum.reason)")
        }
        try badInput {
            try OptionBounds.count(
                repetitions, option: "--repetitions", in: minimum.count...OptionBounds.repetitions.upperBound)
        }
        return repetitions
    }

    /// The matrix with every other setting at its default (`RunConfiguration.init(stores:workloads:scales:…)`, and
    /// the default fixture cache).
    func matrix(counted: Bool = false) throws -> RunSession {
        let stores = try storeKinds()
        let workloads = try workloadList()
        var configuration = RunConfiguration(
            stores: stores.map(\.name), workloads: workloads.map(\.name), scales: scales.scales,
            repetitions: try repetitionCount(), timeBoxSeconds: counted ? nil : timeBox.seconds)
        configuration.fixtureCache = FixtureCache.Place(
            directory: FixtureCache.Place.defaultDirectory, capBytes: FixtureCache.Place.defaultCapBytes)
        return RunSession(configuration: configuration, stores: stores, workloads: workloads, sink: ReportSink())
    }
}

extension RunSession {
    /// The run of a recorded configuration (a run to resume, a baseline), its names resolved to this build's kinds:
    /// a name this build does not have is bad input of `source`.
    init(recorded configuration: RunConfiguration, of source: String) throws {
        let (stores, workloads) = try badInput { try StoreCatalog.kinds(of: configuration, in: source) }
        self.init(configuration: configuration, stores: stores, workloads: workloads, sink: ReportSink())
    }
}

/// `body`'s value, or its unknown name or bad input as a `ValidationError`: a validator's error must be one for the
/// parser to answer it as bad input (exit 2, one line).
func badInput<Value>(_ body: () throws -> Value) throws -> Value {
    do { return try body() } catch let error as UnknownName {
        throw ValidationError(error.description)
    } catch let error as BadInput { throw ValidationError(error.description) }
}
