import Foundation

/// One question asked of a store at a scale: timed, counted and digested.
///
/// A workload knows only the capability protocols (`ItemStore`, …), never a particular store.
public protocol Workload: Sendable {
    /// Short kebab-case name, the same on the command line, in results and in reports.
    var name: String { get }
    /// One line: what is timed.
    var summary: String { get }
    /// The data the store must hold before the timed phase, loaded once per store and scale and copied for
    /// each cell, untimed. Nil: the workload starts from an empty store.
    var fixture: Fixture? { get }
    /// The protocol a store must conform to for the workload's questions.
    var capability: StoreCapability { get }
    /// Untimed work on the open store before its timed phase, and before the phase's process figures (faults,
    /// reads) are taken: `get-warm`'s pass over its keys. Nothing by default.
    func prepare(_ store: any Store, context: WorkloadContext) throws
    /// Runs the timed phase on an open store; the timed parts go through `context.stopwatch`.
    func run(on store: any Store, context: WorkloadContext) throws -> WorkloadOutcome
    /// The digest of what a changing workload left in the store, read back after the timed phase (untimed).
    func digestAfterRun(of store: any Store) throws -> Digest
    /// For a changing loop of steps under a budget floor (`insert-each`): the digest of what its first `steps`
    /// steps left in a store of `scale` records, read back after the timed phase (untimed). Nil by default.
    func prefixDigestAfterRun(of store: any Store, scale: Int, steps: Int) throws -> Digest?
    /// Everything about its figures in one declaration: its kinds of operation, its own tables, the limit it is
    /// held against, whether it times the machine, the count it asks, the app's budgets it is judged against.
    var report: WorkloadReport { get }
}

extension Workload {
    package func prepare(_ store: any Store, context: WorkloadContext) throws {}
    package func prefixDigestAfterRun(of store: any Store, scale: Int, steps: Int) throws -> Digest? { nil }
    package var report: WorkloadReport { WorkloadReport() }

    /// Whether a store of this type can answer the workload's questions: it has the workload's capability.
    public func supports(_ storeType: any Store.Type) -> Bool { capability.isMet(storeType) }

    /// Why a store of `kind` does not run it (its setting rules it out, or its type lacks the capability); nil when
    /// it does.
    package func notApplicableReason(for kind: StoreKind) -> String? {
        if let reason = kind.cannotRun[name] { return reason }
        return supports(kind.type) ? nil : capability.reason(for: kind.name)
    }

    /// Whether a store of `kind` runs it: its type has the capability, and its setting does not rule it out
    /// (`StoreKind.cannotRun`).
    package func applies(to kind: StoreKind) -> Bool { supports(kind.type) && kind.cannotRun[name] == nil }

    /// Its report's declarations (`WorkloadReport`), as the runner and the reports ask them.
    package var measuresMachine: Bool { report.measuresMachine }
    package var countAsked: MaintainedCount? { report.countAsked }
    package var judgedAgainstBudgets: Bool { report.judgedAgainstBudgets }
    package var appBudgets: [AppBudget] { report.appBudgets }
}

/// A workload whose question includes opening the store (`open`): the cell hands it a way to open the store
/// instead of an open store, and it times the open itself.
package protocol OpeningWorkload: Workload {
    /// Opens the store with `open` (timed as the workload sees fit) and runs the rest of the timed phase; returns
    /// the outcome and the open store, which the cell digests and closes.
    func run(opening kind: StoreKind, at directory: URL, context: WorkloadContext) throws
        -> (outcome: WorkloadOutcome, store: any Store)
}

/// What a workload hands back: how many operations it timed and the digest of its answers.
public struct WorkloadOutcome: Sendable {
    /// Operations in the timed phase (records written, lookups, rows scanned, queries): ops/s = operations / time.
    package var operations: Int
    /// The digest of the answers, or nil for a workload that changes the store: its digest is then
    /// `digestAfterRun(of:)`, taken after the timed phase and after memory is sampled.
    package var digest: Digest?
    /// For a workload that both answers and changes (YCSB): `digest` holds its answers, and the store's
    /// `digestAfterRun(of:)` is added to it after the timed phase, so that both the answers and what the writes
    /// left are checked.
    package var alsoDigestsStore: Bool
    /// The workload's own figures besides its timed phase (`WorkloadFigures`); nil for workloads without.
    package var figures: WorkloadFigures?
    /// Whether the time box, or the step count of the cell's group, stopped the workload before all its steps
    /// (`TimeBox`).
    package var timeBoxed: Bool
    /// For a loop of steps (`TimeBox`): how many it did, on which the runner sets its group's count.
    ///
    /// Nil for a workload that always does all its work.
    package var steps: Int?
    /// For a workload that repeats a round of questions (`CountRounds`) more than once: its first round, which
    /// may differ from the rest (a cold round faults the store's pages in).
    ///
    /// Nil elsewhere.
    package var firstRound: FirstRound?
    /// For a loop of steps under a budget floor: its first `TimeBox.Running.minimum` steps, which every cell of the
    /// group does, so that a cell that stopped short of the floor is checked against the others on them; with their
    /// digest where the loop digests answers, without where its digest is the store's
    /// (`Workload.prefixDigestAfterRun` then reads it back).
    ///
    /// Nil elsewhere.
    package var prefix: DigestPrefix?
    /// Whether the loop stopped short of its budget floor on its own time (`TimeBox.floor`): its count of steps is
    /// its own, not its group's.
    package var stoppedShort: Bool
    /// For a loop that times fast steps in blocks (`askInTurn`): how many of its steps it timed alone, so that its
    /// harness floor is timed the same way (`HarnessFloor`).
    ///
    /// Nil elsewhere: every step timed alone.
    package var stepsTimedAlone: Int?

    /// Whether the workload changed the store: its digest is (partly) read back from the store.
    package var changedStore: Bool { digest == nil || alsoDigestsStore }

    /// Makes an outcome holding `figures` and drops it: called before a timed phase, so that the runtime's one-time
    /// instantiation of the outcome's types (about 11k instructions for its optional figures, counted) is the
    /// harness's, made outside the phase, not the first workload's.
    @inline(never) package static func instantiateTypes(figures: WorkloadFigures?) {
        var outcome = WorkloadOutcome(operations: 0, digest: nil, figures: figures)
        outcome.figures = nil
        withExtendedLifetime(outcome) {}
    }

    package init(
        operations: Int, digest: Digest?, alsoDigestsStore: Bool = false,
        figures: WorkloadFigures? = nil, timeBoxed: Bool = false, steps: Int? = nil, firstRound: FirstRound? = nil,
        prefix: DigestPrefix? = nil, stoppedShort: Bool = false, stepsTimedAlone: Int? = nil
    ) {
        self.figures = figures
        self.stepsTimedAlone = stepsTimedAlone
        self.prefix = prefix
        self.stoppedShort = stoppedShort
        self.timeBoxed = timeBoxed
        self.steps = steps
        self.firstRound = firstRound
        self.operations = operations
        self.digest = digest
        self.alsoDigestsStore = alsoDigestsStore
    }
}

/// The digest of a loop's first steps (`WorkloadOutcome.prefix`).
package struct DigestPrefix: Codable, Equatable, Sendable {
    package var steps: Int
    /// Nil until the store's contents are read back (`Workload.prefixDigestAfterRun`).
    package var digest: Digest?

    package init(steps: Int, digest: Digest?) {
        self.steps = steps
        self.digest = digest
    }
}

/// The first of a cell's rounds of the same questions: its questions and their timed seconds.
package struct FirstRound: Codable, Equatable, Sendable {
    package var operations: Int
    package var seconds: Double

    package init(operations: Int, seconds: Double) {
        self.operations = operations
        self.seconds = seconds
    }
}

/// Everything a workload needs besides the store.
public struct WorkloadContext {
    /// The cell's scale, seed, batch size, time box and the settings of its workload alone.
    package private(set) var parameters: CellParameters
    package let stopwatch: Stopwatch
    package let progress: ProgressReporter
    /// The data set's size in records.
    package var scale: Int { parameters.scale }
    package var seed: UInt64 { parameters.seed }
    /// Records per write transaction for bulk writes (`insert`, `update`, `delete`, fixture loads).
    package var batchSize: Int { parameters.batchSize }
    /// Reads per second of the open-loop reader of `read-while-import` (`--read-rate`).
    package var readRate: Double { parameters.readRate }
    /// How far a loop of steps goes (`--time-box`, and its group's count of steps).
    package var timeBox: TimeBox { parameters.timeBox }
    /// How a loop of fast questions is timed (`askInTurn`): by each question's speed, or held alone or in blocks.
    package var loopTiming: LoopTiming = .adaptive
    /// Whether a workload checks its answers against what it knows of the fixture (a scan's N items, the filters'
    /// counts adding up to N, a page's size and order) before its digest counts: every timed cell does (untimed).
    ///
    /// Not the harness's floor, which asks a store that stores nothing (`HarnessFloor`), nor a counted cell, whose
    /// region would count the checks' instructions as the store's; its digests are held against its baseline's, which a
    /// timed run's checks accepted.
    package var checksAnswers = true
    /// The store's directory, for a workload that watches its files (`pinned-reader`); set by the cell.
    package var directory: URL?
    /// This tool's executable, for a workload that starts a process of its own (`two-processes`); nil where this
    /// process is not the tool (a package-benchmark suite), and such a workload cannot run there.
    package var executable: String?

    /// How `askInTurn` times its steps.
    package enum LoopTiming: Sendable {
        /// Steps faster than `sampledAloneAbove` in blocks, slower ones alone: a cell's loop.
        case adaptive
        /// Every step alone.
        case alone
        /// After the first, every step in blocks.
        case blocks
    }

    public static let defaultReadRate = 1_000.0

    /// The most questions a workload of one question per record asks (`get`'s lookups, YCSB's operations,
    /// `import`'s items): min(N, this).
    ///
    /// Beyond it more questions only repeat what these measured, and a cell's time stays bounded at any N.
    package static let questionLimit = 100_000

    /// How many questions such a workload asks of a store of `scale` records.
    package static func questions(scale: Int) -> Int { min(scale, questionLimit) }

    public init(parameters: CellParameters, stopwatch: Stopwatch, progress: ProgressReporter) {
        self.parameters = parameters
        self.stopwatch = stopwatch
        self.progress = progress
    }

    /// A context of these parameters (`readRate` the only extra: pass it only to set it).
    public init(
        scale: Int, seed: UInt64, batchSize: Int, stopwatch: Stopwatch, progress: ProgressReporter,
        readRate: Double? = nil, timeBox: TimeBox = .none
    ) {
        self.init(
            parameters: CellParameters(
                scale: scale, seed: seed, batchSize: batchSize, timeBox: timeBox,
                extras: readRate.map { [.readRate($0)] } ?? []),
            stopwatch: stopwatch, progress: progress)
    }

    /// Starts the per-second timeline over: for a workload whose timed part begins after untimed work of its own
    /// (a reference phase, a computed plan), so that the timeline's first windows are the timed part's.
    func restartTimeline() {
        stopwatch.timeline?.start = monotonicNanoseconds()
    }

    /// The same context with another batch size.
    func with(batchSize: Int) -> WorkloadContext {
        var context = self
        context.parameters.batchSize = batchSize
        return context
    }

    package var items: ItemGenerator { ItemGenerator(seed: seed) }
}

/// Counts records done for the live progress line.
///
/// The runner's child process forwards them to the parent.
public final class ProgressReporter {
    package private(set) var done = 0
    /// Where the records done also go, per second of the timed phase, once the cell starts one.
    package var timeline: Timeline?
    private let report: (Int) -> Void
    private var lastReport: UInt64 = 0

    public init(report: @escaping (Int) -> Void = { _ in }) { self.report = report }

    /// Adds `count` records; reports at most ten times a second.
    package func advance(by count: Int) {
        done += count
        let now = monotonicNanoseconds()
        timeline?.count(count, at: now)
        if now - lastReport > 100_000_000 {
            lastReport = now
            report(done)
        }
    }
}
