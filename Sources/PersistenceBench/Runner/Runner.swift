import Foundation

// MARK: - What the scheduler reports and asks

/// Told what the runner is doing, for a progress display.
package protocol RunObserver: AnyObject {
    /// A fixture (untimed setup shared by the cells of a store and scale) starts loading.
    func fixtureStarted(store: String, fixture: String, scale: Scale)
    /// A cell's process starts (after its fixture, if any, is ready); `index` counts from 1 to `total`.
    func cellStarted(_ cell: PlannedCell, index: Int, total: Int)
    /// A running cell or fixture load: seconds since its process started, records done if it reported any.
    func progress(elapsedSeconds: Double, recordsDone: Int?)
    func cellFinished(_ result: CellResult, index: Int, total: Int)
    /// Before each `cellFinished` of a run: the seconds since the run (this invocation of it) started, and an
    /// estimate of what its remaining cells will take (`RunEstimate`), nil before anything was measured.
    func runProgress(elapsedSeconds: Double, remainingSeconds: Double?)
}

extension RunObserver {
    package func runProgress(elapsedSeconds: Double, remainingSeconds: Double?) {}
}

/// What the scheduler asks of a build's launcher: a cell measured within its time box (its store's files moved to
/// `keep`, if given; `started` called once its fixture is ready), and the fixtures of a scale removed once the
/// scheduler is done with them.
///
/// `CellLauncher` runs each cell in a child process; a test's launcher answers in its own process, so that the
/// scheduler's re-runs, lanes, budget skips and resumption are tested without children.
package protocol CellMeasuring: AnyObject {
    func measure(_ cell: PlannedCell, box: TimeBox, keep: URL?, started: () -> Void) throws -> (
        result: CellResult, overBudget: String?
    )
    func removeFixtures() throws
}

// MARK: - The scheduler

/// Runs a matrix of cells, each in its own child process of a build of this tool, and collects their results: the
/// one scheduler of every run mode.
///
/// A run has one build; `check --base` two in turn (`interleaved`), each with its own launcher, fixtures and results.
/// The plan (`RunPlan`) orders the cells; the scheduler's policies give each its time box (`StepCounts`), run a group's
/// fastest stores again on its count, order a group slowest store first (`SlowestFirst`), skip what grew past a budget
/// (`BudgetSkip`) and keep what a resumed run finished (`Resumption`).
///
/// Per cell the parent copies the store's fixture (loaded once per store and scale, in a child of its own),
/// starts the child, watches its wall time and resident memory against the budgets, reaps it with wait4 for
/// its rusage, and hands the results so far to `save` after every cell, so that an interrupted run loses no
/// finished cell.
package final class Runner {
    package let configuration: RunConfiguration
    private let stores: [StoreKind]
    private let workloads: [any Workload]
    private let outputDirectory: URL
    /// The run's plan (`RunPlan`).
    ///
    /// The cells appear in results.json in this order, but for the first repetition of a workload at every scale after
    /// the first, which a one-build run orders slowest store first (`SlowestFirst`).
    package let plan: RunPlan
    private let observer: any RunObserver
    private let save: (Side, RunResults) throws -> Void
    /// Each build's launcher (which counts a cell instead of timing it where the configuration says so), results
    /// and skips: one lane, or base and current.
    private var lanes: [Lane]
    /// Finished cells of an interrupted run being resumed: reused, not run again.
    private var finished: [CellID: CellResult] = [:]
    /// The boot id of the machine this invocation runs on, recorded on every cell it runs (`CellResult.bootID`).
    private var bootID: String?
    /// Resuming on another machine: the groups begun on another and left unfinished, which run again here whole
    /// (`Resumption`).
    package private(set) var groupsRunAgain: [GroupID] = []
    /// The finished cells of the run being resumed that this one keeps.
    package var cellsKept: Int { finished.count }
    private var steps: StepCounts
    /// Earlier runs' cells (`run --estimate-from`), which estimate what is left beside this run's own.
    package var prior: [[CellResult]] = []
    /// Whether the fixture cache held a cell's fixture at the run's start: its load is then none in the estimate of
    /// what is left (an earlier run's loads are not this one's).
    package var cached: (PlannedCell, Fixture) -> Bool = { _, _ in false }

    private struct Lane {
        let side: Side
        let launcher: any CellMeasuring
        var results: RunResults
        var skip = BudgetSkip()
    }

    // MARK: - Building a run

    /// One build's run.
    /// - Parameters:
    ///   - executable: this tool's own executable; the children run its hidden `_child` command.
    ///   - save: called with the results after every cell and at the end.
    /// Throws when `configuration` counts its cells and valgrind or libOperationCounter.so is missing.
    package convenience init(
        configuration: RunConfiguration, stores: [StoreKind], workloads: [any Workload], environment: RunEnvironment,
        outputDirectory: URL, executable: String, observer: any RunObserver,
        save: @escaping (RunResults) throws -> Void
    ) throws {
        try self.init(
            configuration: configuration, stores: stores, workloads: workloads, environment: environment,
            outputDirectory: outputDirectory,
            measuring: CellLauncher(
                executable: executable, configuration: configuration,
                workDirectory: outputDirectory.appendingPathComponent(OutputDirectory.scratchName),
                runDirectory: outputDirectory, observer: observer),
            observer: observer, save: save)
    }

    /// One build's run whose cells `launcher` measures: `CellLauncher` in child processes, or a test's own.
    package convenience init(
        configuration: RunConfiguration, stores: [StoreKind], workloads: [any Workload], environment: RunEnvironment,
        outputDirectory: URL, measuring launcher: any CellMeasuring, observer: any RunObserver,
        save: @escaping (RunResults) throws -> Void
    ) throws {
        try self.init(
            plan: RunPlan(configuration, stores: stores, workloads: workloads), configuration: configuration,
            stores: stores, workloads: workloads, environment: environment, outputDirectory: outputDirectory,
            launchers: [(.current, launcher)], observer: observer, save: { _, results in try save(results) })
    }

    private init(
        plan: RunPlan, configuration: RunConfiguration, stores: [StoreKind], workloads: [any Workload],
        environment: RunEnvironment, outputDirectory: URL, launchers: [(Side, any CellMeasuring)],
        observer: any RunObserver, save: @escaping (Side, RunResults) throws -> Void
    ) throws {
        let startedAt = Date()
        lanes = launchers.map { side, launcher in
            Lane(
                side: side, launcher: launcher,
                results: RunResults(environment: environment, configuration: configuration, startedAt: startedAt))
        }
        self.plan = plan
        self.configuration = configuration
        self.stores = stores
        self.workloads = workloads
        self.outputDirectory = outputDirectory
        self.observer = observer
        self.save = save
        steps = StepCounts(configuration, perCell: plan.interleaved)
        bootID = environment.bootID
    }

    /// Two builds of the tool (a base revision's and this one's) timed on this machine cell by cell, in turn
    /// (`RunPlan.interleaved`).
    ///
    /// Each build loads its own fixtures (made by the same generator from the same seed), so that a change of a store's
    /// file format is measured, not misread.
    /// - Parameters:
    ///   - executables: each side's tool; its children run its hidden `_child` command, so both sides must speak the
    ///     same `ChildRequest` (a base from before that protocol cannot).
    ///   - first: the side that runs first in odd repetitions.
    ///   - save: called with a side's results after each of its cells and at the end.
    package static func interleaved(
        configuration: RunConfiguration, stores: [StoreKind], workloads: [any Workload], environment: RunEnvironment,
        executables: Sides<String>, first: Side = .base, outputDirectory: URL, observer: any RunObserver,
        save: @escaping (Side, RunResults) throws -> Void
    ) throws -> Sides<RunResults> {
        let work = outputDirectory.appendingPathComponent(OutputDirectory.scratchName)
        let launchers = try Sides<any CellMeasuring> { side in
            try CellLauncher(
                executable: executables[side], configuration: configuration,
                workDirectory: work.appendingPathComponent(side.rawValue), runDirectory: outputDirectory,
                observer: observer)
        }
        return try interleaved(
            configuration: configuration, stores: stores, workloads: workloads, environment: environment,
            measuring: launchers, first: first, outputDirectory: outputDirectory, observer: observer, save: save)
    }

    /// Two builds' cells in turn, each side's measured by its launcher of `launchers`.
    package static func interleaved(
        configuration: RunConfiguration, stores: [StoreKind], workloads: [any Workload], environment: RunEnvironment,
        measuring launchers: Sides<any CellMeasuring>, first: Side = .base, outputDirectory: URL,
        observer: any RunObserver, save: @escaping (Side, RunResults) throws -> Void
    ) throws -> Sides<RunResults> {
        let runner = try Runner(
            plan: .interleaved(configuration, stores: stores, workloads: workloads, first: first),
            configuration: configuration, stores: stores, workloads: workloads, environment: environment,
            outputDirectory: outputDirectory, launchers: [(.base, launchers.base), (.current, launchers.current)],
            observer: observer, save: save)
        try runner.schedule()
        return Sides(base: runner.lanes[0].results, current: runner.lanes[1].results)
    }

    /// Resumes `interrupted` (read from `outputDirectory`'s results.json) on `machine`: its configuration, start
    /// and environment are kept, its finished cells kept and skipped, every other planned cell run, and so is a cell
    /// that was stopped from outside the run (`CellResult.interrupted`).
    ///
    /// On another machine than the one that ran them (another boot), `machine` joins `RunResults.resumedOn`, and a
    /// (workload, scale) group begun there and left unfinished runs again here whole (`groupsRunAgain`), so that each
    /// group's stores are compared on one machine.
    package convenience init(
        resuming interrupted: RunResults, on machine: RunEnvironment, stores: [StoreKind], workloads: [any Workload],
        outputDirectory: URL, executable: String, observer: any RunObserver,
        save: @escaping (RunResults) throws -> Void
    ) throws {
        try self.init(
            resuming: interrupted, on: machine, stores: stores, workloads: workloads, outputDirectory: outputDirectory,
            measuring: CellLauncher(
                executable: executable, configuration: interrupted.configuration,
                workDirectory: outputDirectory.appendingPathComponent(OutputDirectory.scratchName),
                runDirectory: outputDirectory, observer: observer),
            observer: observer, save: save)
    }

    /// The resumption of `interrupted` whose cells `launcher` measures.
    package convenience init(
        resuming interrupted: RunResults, on machine: RunEnvironment, stores: [StoreKind], workloads: [any Workload],
        outputDirectory: URL, measuring launcher: any CellMeasuring, observer: any RunObserver,
        save: @escaping (RunResults) throws -> Void
    ) throws {
        try self.init(
            configuration: interrupted.configuration, stores: stores, workloads: workloads,
            environment: interrupted.environment, outputDirectory: outputDirectory, measuring: launcher,
            observer: observer, save: save)
        lanes[0].results.startedAt = interrupted.startedAt
        lanes[0].results.resumedOn = interrupted.resumedOn
        bootID = machine.bootID
        let first = interrupted.environment.bootID
        if machine.bootID != first, !(interrupted.resumedOn ?? []).contains(where: { $0.bootID == machine.bootID }) {
            lanes[0].results.resumedOn = (interrupted.resumedOn ?? []) + [machine]
        }
        let resumption = Resumption(interrupted, plan: plan, bootID: machine.bootID)
        groupsRunAgain = resumption.groupsRunAgain
        finished = resumption.kept
    }

    private var workDirectory: URL { outputDirectory.appendingPathComponent(OutputDirectory.scratchName) }

    private static func sameGroup(_ one: PlannedCell, _ other: PlannedCell) -> Bool {
        one.group == other.group && one.repetition == other.repetition
    }

    /// Cells of the run being resumed that the scheduler has placed in the results so far.
    private var placed: Set<CellID> = []

    /// A lane's results as they are saved: the cells run (or kept) so far, then the resumed run's finished cells the
    /// scheduler has not reached yet, so that a resume stopped part way keeps every cell it was given.
    private func savable(_ lane: Int) -> RunResults {
        var results = lanes[lane].results
        guard !finished.isEmpty else { return results }
        results.cells += plan.cells.compactMap { cell in
            cell.side == lanes[lane].side && !placed.contains(cell.id) ? finished[cell.id] : nil
        }
        return results
    }

    // MARK: - Scheduling

    /// Runs every cell of a one-build run and returns the results (also passed to `save`).
    package func run() throws -> RunResults {
        try schedule()
        return lanes[0].results
    }

    /// The scheduler: runs every planned cell on its build's lane, saving that lane's results after each.
    private func schedule() throws {
        try FileSystem.remove(workDirectory)
        try FileSystem.makeDirectory(workDirectory)
        for lane in lanes.indices { try save(lanes[lane].side, savable(lane)) }
        var plan = self.plan.cells
        let started = monotonicNanoseconds()
        var lastFinished = started
        for offset in plan.indices {
            if !self.plan.interleaved, plan[offset].repetition == 1,
                offset == 0 || !Self.sameGroup(plan[offset - 1], plan[offset])
            {
                let group = offset..<(plan[offset...].firstIndex { !Self.sameGroup($0, plan[offset]) } ?? plan.count)
                plan[group] = ArraySlice(SlowestFirst.order(plan[group], measured: lanes[0].results.cells))
            }
            let cell = plan[offset]
            let lane = lanes.firstIndex { $0.side == cell.side } ?? 0
            do {
                var result: CellResult
                if let kept = finished[cell.id] {
                    result = kept
                } else {
                    result = try run(cell, on: lane, index: offset + 1, total: plan.count, box: steps.box(for: cell))
                    let now = monotonicNanoseconds()
                    result.runSeconds = seconds(nanoseconds: now - lastFinished)
                    lastFinished = now
                }
                lanes[lane].results.cells.append(result)
                placed.insert(cell.id)
                try save(cell.side, savable(lane))
                observer.runProgress(
                    elapsedSeconds: secondsSince(started),
                    remainingSeconds: RunEstimate(runs: prior, resuming: lanes.flatMap(\.results.cells)).seconds(
                        of: plan[(offset + 1)...], continuing: true, budgets: RunEstimate.Budgets(configuration),
                        cached: cached))
                observer.cellFinished(result, index: offset + 1, total: plan.count)
                let next = offset + 1 < plan.count ? plan[offset + 1] : nil
                steps.record(result)
                if !self.plan.interleaved, cell.repetition == 1, next?.repetition != 1 || next?.group != cell.group {
                    try equalizeFirstRepetition(of: cell.workload, at: cell.scale, index: offset + 1, total: plan.count)
                }
                if next == nil || next?.scale != cell.scale {
                    for lane in lanes { try lane.launcher.removeFixtures() }
                }
            } catch {
                throw stopped(at: offset + 1, of: plan.count, cell: cell, by: error)
            }
        }
        for lane in lanes.indices {
            lanes[lane].results.finishedAt = Date()
            try save(lanes[lane].side, lanes[lane].results)
        }
        try FileSystem.remove(workDirectory)
    }

    /// The run itself failed (its disk is full, its directory went away) at cell `index` of `total`: the scratch space
    /// freed, and what is kept said, rather than a bare system error.
    private func stopped(at index: Int, of total: Int, cell: PlannedCell, by error: any Error) -> BenchError {
        try? FileSystem.remove(workDirectory)
        let finished = lanes.map(\.results.cells.count).reduce(0, +)
        let kept =
            plan.interleaved
            ? "The \(finished) finished cells of both builds are in \(outputDirectory.path)/base and current; "
                + "a time check runs again whole"
            : "The \(finished) finished cells are in \(outputDirectory.path)/results.json; "
                + "`persistbench run --resume \(outputDirectory.path)` continues the run"
        return BenchError(
            "the run stopped at cell \(index) of \(total) (\(cell.store.name) \(cell.workload.name) \(cell.scale)): "
                + "\(FileSystem.describe(error)). \(kept)")
    }

    /// Once every first-repetition cell of a (workload, scale) has run, runs again on exactly the group's count of
    /// steps each one that did more (it ran before a slower store set the count), replacing its result: every cell
    /// of the group is then measured and checked on the same steps.
    private func equalizeFirstRepetition(of workload: any Workload, at scale: Scale, index: Int, total: Int) throws {
        let group = GroupID(workload: workload.name, scale: scale)
        for position in lanes[0].results.cells.indices where lanes[0].results.cells[position].group == group {
            let done = lanes[0].results.cells[position]
            guard let box = steps.rerun(done, of: workload), let store = stores.first(where: { $0.name == done.store })
            else { continue }
            let cell = PlannedCell(store: store, workload: workload, scale: scale, repetition: 1)
            var again = try run(cell, on: 0, index: index, total: total, box: box)
            // The run's time it took stays what the first measurement took, the fixture's load in it included.
            (again.runSeconds, again.fixtureSeconds, again.fixture) = (
                done.runSeconds, done.fixtureSeconds, done.fixture
            )
            lanes[0].results.cells[position] = again
            try save(lanes[0].side, lanes[0].results)
            observer.cellFinished(again, index: index, total: total)
        }
    }

    // MARK: - One cell

    private func run(_ cell: PlannedCell, on lane: Int, index: Int, total: Int, box: TimeBox) throws -> CellResult {
        var result = try runOnThisMachine(cell, on: lane, index: index, total: total, box: box)
        result.bootID = bootID
        return result
    }

    private func runOnThisMachine(
        _ cell: PlannedCell, on lane: Int, index: Int, total: Int, box: TimeBox
    ) throws -> CellResult {
        if let notApplicable = cell.notApplicable { return notApplicable }
        if let reason = lanes[lane].skip.reason(toSkip: cell) {
            return CellResult(cell.id, status: .dnf, reason: reason)
        }
        let keep =
            configuration.keepStores && !plan.interleaved
                && cell.repetition == configuration.repetitions(at: cell.scale)
            ? outputDirectory.appendingPathComponent("stores").appendingPathComponent(cell.store.name)
                .appendingPathComponent("\(cell.workload.name)-\(cell.scale)") : nil
        // Announced after the fixture is ready, so that a live display shows the cell, not the load.
        let (result, overBudget) = try lanes[lane].launcher.measure(cell, box: box, keep: keep) {
            observer.cellStarted(cell, index: index, total: total)
        }
        if let overBudget { lanes[lane].skip.record(cell, overBudget: overBudget) }
        return result
    }
}
