import Foundation

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

/// Runs a matrix of cells, each in its own child process of `executable`, and collects their results.
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
    /// Runs each cell's child; counts it instead of timing it where the configuration says so.
    private let launcher: CellLauncher
    private let observer: any RunObserver
    private let save: (RunResults) throws -> Void
    private var results: RunResults
    /// Finished cells of an interrupted run being resumed: reused, not run again.
    private var finished: [CellID: CellResult] = [:]
    /// The boot id of the machine this invocation runs on, recorded on every cell it runs (`CellResult.bootID`).
    private var bootID: String?
    /// Resuming on another machine: the groups begun on another and left unfinished, which run again here whole
    /// (`Resumption`).
    package private(set) var groupsRunAgain: [GroupID] = []
    /// The finished cells of the run being resumed that this one keeps.
    package var cellsKept: Int { finished.count }
    private var skip = BudgetSkip()
    private var steps: StepCounts

    /// - Parameters:
    ///   - executable: this tool's own executable; the children run its hidden `_child` command.
    ///   - save: called with the results after every cell and at the end.
    /// Throws when `configuration` counts its cells and valgrind or libOperationCounter.so is missing.
    package init(
        configuration: RunConfiguration, stores: [StoreKind], workloads: [any Workload], environment: RunEnvironment,
        outputDirectory: URL, executable: String, observer: any RunObserver,
        save: @escaping (RunResults) throws -> Void
    ) throws {
        launcher = try CellLauncher(
            executable: executable, configuration: configuration,
            workDirectory: outputDirectory.appendingPathComponent("work"), observer: observer)
        self.configuration = configuration
        self.stores = stores
        self.workloads = workloads
        self.outputDirectory = outputDirectory
        self.observer = observer
        self.save = save
        steps = StepCounts(configuration)
        results = RunResults(environment: environment, configuration: configuration, startedAt: Date())
        bootID = environment.bootID
    }

    /// Resumes `interrupted` (read from `outputDirectory`'s results.json) on `machine`: its configuration, start
    /// and environment are kept, its finished cells kept and skipped, every other planned cell run, and so is a cell
    /// that was stopped from outside the run (`CellResult.interrupted`). On another machine than the one that ran
    /// them (another boot), `machine` joins `RunResults.resumedOn`, and a (workload, scale) group begun there and
    /// left unfinished runs again here whole (`groupsRunAgain`), so that each group's stores are compared on one
    /// machine.
    package convenience init(
        resuming interrupted: RunResults, on machine: RunEnvironment, stores: [StoreKind], workloads: [any Workload],
        outputDirectory: URL, executable: String, observer: any RunObserver,
        save: @escaping (RunResults) throws -> Void
    ) throws {
        try self.init(
            configuration: interrupted.configuration, stores: stores, workloads: workloads,
            environment: interrupted.environment, outputDirectory: outputDirectory, executable: executable,
            observer: observer, save: save)
        results.startedAt = interrupted.startedAt
        results.resumedOn = interrupted.resumedOn
        bootID = machine.bootID
        let first = interrupted.environment.bootID
        if machine.bootID != first, !(interrupted.resumedOn ?? []).contains(where: { $0.bootID == machine.bootID }) {
            results.resumedOn = (interrupted.resumedOn ?? []) + [machine]
        }
        let resumption = Resumption(interrupted, plan: plan, bootID: machine.bootID)
        groupsRunAgain = resumption.groupsRunAgain
        finished = resumption.kept
    }

    private var workDirectory: URL { outputDirectory.appendingPathComponent("work") }

    /// The run's plan (`RunPlan`). The cells appear in results.json in this order, but for the first repetition of a
    /// workload at every scale after the first, which `run` orders slowest store first (`SlowestFirst`).
    package var plan: RunPlan { RunPlan(configuration, stores: stores, workloads: workloads) }

    private static func sameGroup(_ one: PlannedCell, _ other: PlannedCell) -> Bool {
        one.group == other.group && one.repetition == other.repetition
    }

    /// Runs every cell and returns the results (also passed to `save`).
    package func run() throws -> RunResults {
        try FileSystem.remove(workDirectory)
        try FileSystem.makeDirectory(workDirectory)
        try save(results)
        var plan = self.plan.cells
        let started = monotonicNanoseconds()
        var lastFinished = started
        for offset in plan.indices {
            if plan[offset].repetition == 1, offset == 0 || !Self.sameGroup(plan[offset - 1], plan[offset]) {
                let group = offset..<(plan[offset...].firstIndex { !Self.sameGroup($0, plan[offset]) } ?? plan.count)
                plan[group] = ArraySlice(SlowestFirst.order(plan[group], measured: results.cells))
            }
            let cell = plan[offset]
            do {
                var result: CellResult
                if let kept = finished[cell.id] {
                    result = kept
                } else {
                    result = try run(cell, index: offset + 1, total: plan.count, box: steps.box(for: cell))
                    let now = monotonicNanoseconds()
                    result.runSeconds = seconds(nanoseconds: now - lastFinished)
                    lastFinished = now
                }
                results.cells.append(result)
                try save(results)
                observer.runProgress(
                    elapsedSeconds: secondsSince(started),
                    remainingSeconds: RunEstimate(measured: results.cells).seconds(
                        of: plan[(offset + 1)...], continuing: true, budgets: RunEstimate.Budgets(configuration)))
                observer.cellFinished(result, index: offset + 1, total: plan.count)
                let next = offset + 1 < plan.count ? plan[offset + 1] : nil
                steps.record(result)
                if cell.repetition == 1, next?.repetition != 1 || next?.group != cell.group {
                    try equalizeFirstRepetition(of: cell.workload, at: cell.scale, index: offset + 1, total: plan.count)
                }
                if next == nil || next?.scale != cell.scale {
                    try launcher.removeFixtures()
                }
            } catch {
                // The run itself failed (its disk is full, its directory went away): free the scratch space and
                // say what is kept, rather than a bare system error.
                try? FileSystem.remove(workDirectory)
                throw BenchError(
                    "the run stopped at cell \(offset + 1) of \(plan.count) (\(cell.store.name) \(cell.workload.name) "
                        + "\(cell.scale)): \(FileSystem.describe(error)). The \(results.cells.count) finished cells are in "
                        + "\(outputDirectory.path)/results.json; `persistbench run --resume \(outputDirectory.path)` "
                        + "continues the run")
            }
        }
        results.finishedAt = Date()
        try save(results)
        try FileSystem.remove(workDirectory)
        return results
    }

    /// Once every first-repetition cell of a (workload, scale) has run, runs again on exactly the group's count of
    /// steps each one that did more (it ran before a slower store set the count), replacing its result: every cell
    /// of the group is then measured and checked on the same steps.
    private func equalizeFirstRepetition(of workload: any Workload, at scale: Scale, index: Int, total: Int) throws {
        let group = GroupID(workload: workload.name, scale: scale)
        for position in results.cells.indices where results.cells[position].group == group {
            let done = results.cells[position]
            guard let box = steps.rerun(done, of: workload), let store = stores.first(where: { $0.name == done.store })
            else { continue }
            let cell = PlannedCell(store: store, workload: workload, scale: scale, repetition: 1)
            var again = try run(cell, index: index, total: total, box: box)
            // The run's time it took stays what the first measurement took, the fixture's load in it included.
            (again.runSeconds, again.fixtureSeconds) = (done.runSeconds, done.fixtureSeconds)
            results.cells[position] = again
            try save(results)
            observer.cellFinished(again, index: index, total: total)
        }
    }

    private func run(_ cell: PlannedCell, index: Int, total: Int, box: TimeBox) throws -> CellResult {
        var result = try runOnThisMachine(cell, index: index, total: total, box: box)
        result.bootID = bootID
        return result
    }

    private func runOnThisMachine(_ cell: PlannedCell, index: Int, total: Int, box: TimeBox) throws -> CellResult {
        if let notApplicable = cell.notApplicable { return notApplicable }
        if let reason = skip.reason(toSkip: cell) { return CellResult(cell.id, status: .dnf, reason: reason) }
        let keep =
            configuration.keepStores && cell.repetition == configuration.repetitions(at: cell.scale)
            ? outputDirectory.appendingPathComponent("stores").appendingPathComponent(cell.store.name)
                .appendingPathComponent("\(cell.workload.name)-\(cell.scale)") : nil
        // Announced after the fixture is ready, so that a live display shows the cell, not the load.
        let (result, overBudget) = try launcher.measure(cell, box: box, keep: keep) {
            observer.cellStarted(cell, index: index, total: total)
        }
        if let overBudget { skip.record(cell, overBudget: overBudget) }
        return result
    }
}
