import Foundation

/// One planned cell of a run's matrix.
package struct PlannedCell: Sendable {
    package let store: StoreKind
    package let workload: any Workload
    package let scale: Scale
    package let repetition: Int
}

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
    /// Finished cells of an interrupted run being resumed, by `cellKey`: reused, not run again.
    private var finished: [String: CellResult] = [:]
    /// The boot id of the machine this invocation runs on, recorded on every cell it runs (`CellResult.bootID`).
    private var bootID: String?
    /// Resuming on another machine: the (workload, scale) groups begun on another and left unfinished, which run
    /// again here whole ("page 10M"), in the plan's order.
    package private(set) var groupsRunAgain: [String] = []
    /// The finished cells of the run being resumed that this one keeps.
    package var cellsKept: Int { finished.count }
    /// Per store and workload, the first cell that ran out of a budget: the same work at this scale and above is
    /// not run again (`run(_:index:total:)`), since it only grows.
    private var outOfBudget: [String: (scale: Scale, repetition: Int, reason: String)] = [:]
    /// Per (workload, scale) whose workload is a loop of steps, the fewest steps a first-repetition cell did: the
    /// count every cell of the group does (`TimeBox`).
    private var groupSteps: [String: Int] = [:]
    /// Per (store, workload, scale) whose first repetition stopped short of its budget floor on its own time
    /// (`TimeBox.floor`): its own count of steps, which its later repetitions do; its group's count is the others'.
    private var ownSteps: [String: Int] = [:]

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
        let kept = interrupted.cells.filter { $0.interrupted != true }
        let planned = Dictionary(grouping: plan) { Self.groupKey($0.workload.name, $0.scale) }.mapValues(\.count)
        let keptByGroup = Dictionary(grouping: kept) { Self.groupKey($0.workload, $0.scale) }
        let elsewhere = Set(
            keptByGroup.filter { group, cells in
                cells.count < planned[group] ?? 0 && cells.contains { ($0.bootID ?? first) != machine.bootID }
            }.keys)
        groupsRunAgain = orderedUnique(
            plan.filter { elsewhere.contains(Self.groupKey($0.workload.name, $0.scale)) }
                .map { "\($0.workload.name) \($0.scale)" })
        for cell in kept where !elsewhere.contains(Self.groupKey(cell.workload, cell.scale)) {
            finished[Self.cellKey(cell.store, cell.workload, cell.scale, cell.repetition)] = cell
        }
    }

    private static func groupKey(_ workload: String, _ scale: Scale) -> String { "\(workload)/\(scale.records)" }

    private static func cellKey(_ store: String, _ workload: String, _ scale: Scale, _ repetition: Int) -> String {
        "\(store)/\(workload)/\(scale.records)/\(repetition)"
    }

    private var workDirectory: URL { outputDirectory.appendingPathComponent("work") }

    /// Scale by scale, workload by workload; within a repetition every store runs once, so that a drift in the
    /// machine's speed during the run touches every store alike, and in an order shuffled from the seed for each
    /// (scale, workload, repetition), so that no store always runs first, on a cold machine, or last. The cells
    /// appear in results.json in this order, but for the first repetition of a workload at every scale after the
    /// first, which `run` orders slowest store first (`slowestFirst`). A shard's run plans its own groups only
    /// (`Shard`), each as the whole run would.
    package var plan: [PlannedCell] { Self.plan(configuration, stores: stores, workloads: workloads) }

    /// The plan of a run of `configuration` with these stores and workloads (`plan`), without a runner.
    package static func plan(_ configuration: RunConfiguration, stores: [StoreKind], workloads: [any Workload])
        -> [PlannedCell]
    {
        let groups = configuration.shard.map { Set($0.groups(of: configuration)) }
        return configuration.scales.enumerated().flatMap { scaleIndex, scale in
            workloads.enumerated().filter { _, workload in
                groups?.contains(Shard.Group(workload: workload.name, scale: scale)) ?? true
            }.flatMap { workloadIndex, workload in
                (1...configuration.repetitions(at: scale)).flatMap { repetition in
                    Self.storeOrder(
                        stores, seed: configuration.seed,
                        round: UInt64(
                            ((scaleIndex * workloads.count) + workloadIndex) * configuration.repetitions
                                + repetition)
                    ).map { PlannedCell(store: $0, workload: workload, scale: scale, repetition: repetition) }
                }
            }
        }
    }

    private static func sameGroup(_ one: PlannedCell, _ other: PlannedCell) -> Bool {
        one.workload.name == other.workload.name && one.scale == other.scale && one.repetition == other.repetition
    }

    /// The first repetition of a (workload, scale), slowest store first: by the seconds per step each store took in
    /// the first repetition of the same workload at the largest smaller scale measured, stores with no such cell
    /// first, ties in the shuffled order. The slowest store then sets the group's count (`TimeBox`) before the
    /// others run, and none of them runs again on it. The first scale keeps the shuffled order; so do the later
    /// repetitions, which have no clock.
    static func slowestFirst(_ cells: some Collection<PlannedCell>, measured: [CellResult]) -> [PlannedCell] {
        guard let first = cells.first else { return [] }
        let earlier = measured.filter {
            $0.workload == first.workload.name && $0.repetition == 1 && $0.scale.records < first.scale.records
                && $0.metrics?.steps != nil
        }
        guard let scale = earlier.map(\.scale.records).max() else { return Array(cells) }
        var secondsPerStep: [String: Double] = [:]
        for cell in earlier where cell.scale.records == scale {
            if let metrics = cell.metrics, let steps = metrics.steps, steps > 0 {
                secondsPerStep[cell.store] = metrics.timedSeconds / Double(steps)
            }
        }
        let order = cells.enumerated().sorted { one, other in
            let (mine, theirs) = (secondsPerStep[one.element.store.name], secondsPerStep[other.element.store.name])
            if mine != theirs { return (mine ?? .infinity) > (theirs ?? .infinity) }
            return one.offset < other.offset
        }
        return order.map(\.element)
    }

    /// `stores` shuffled (Fisher–Yates) from `seed` for the `round`-th repetition of the run.
    static func storeOrder<Element>(_ stores: [Element], seed: UInt64, round: UInt64) -> [Element] {
        var rng = SplitMix64(seed: seed, stream: .storeOrder, index: round)
        var order = stores
        for index in stride(from: order.count - 1, to: 0, by: -1) {
            order.swapAt(index, Int(rng.below(UInt64(index + 1))))
        }
        return order
    }

    /// Runs every cell and returns the results (also passed to `save`).
    package func run() throws -> RunResults {
        try FileSystem.remove(workDirectory)
        try FileSystem.makeDirectory(workDirectory)
        try save(results)
        var plan = self.plan
        let started = monotonicNanoseconds()
        var lastFinished = started
        for offset in plan.indices {
            if plan[offset].repetition == 1, offset == 0 || !Self.sameGroup(plan[offset - 1], plan[offset]) {
                let group = offset..<(plan[offset...].firstIndex { !Self.sameGroup($0, plan[offset]) } ?? plan.count)
                plan[group] = ArraySlice(Self.slowestFirst(plan[group], measured: results.cells))
            }
            let cell = plan[offset]
            let key = Self.cellKey(cell.store.name, cell.workload.name, cell.scale, cell.repetition)
            do {
                var result: CellResult
                if let kept = finished[key] {
                    result = kept
                } else {
                    result = try run(cell, index: offset + 1, total: plan.count, box: box(for: cell))
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
                if cell.repetition == 1, let steps = result.metrics?.steps {
                    let group = Self.groupKey(cell.workload.name, cell.scale)
                    if result.metrics?.stoppedShort == true {
                        ownSteps[cell.store.name + "/" + group] = steps
                    } else {
                        groupSteps[group] = min(steps, groupSteps[group] ?? steps)
                    }
                }
                if cell.repetition == 1,
                    next?.repetition != 1 || next?.workload.name != cell.workload.name || next?.scale != cell.scale
                {
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
                        + "\(cell.scale)): \(Self.describe(error)). The \(results.cells.count) finished cells are in "
                        + "\(outputDirectory.path)/results.json; `persistbench run --resume \(outputDirectory.path)` "
                        + "continues the run")
            }
        }
        results.finishedAt = Date()
        try save(results)
        try FileSystem.remove(workDirectory)
        return results
    }

    /// The time box of a cell: in a counted run, `CountingLauncher.steps` and no clock; in the first repetition the
    /// clock and the fewest steps a cell of its group did so far; later, once the group's count is set, that count
    /// (or the store's own, where it stopped short of its budget floor) and no clock (`TimeBox`). A workload judged
    /// against an app's budget has the budget floor.
    private func box(for cell: PlannedCell) -> TimeBox {
        if configuration.counted == true { return TimeBox(seconds: nil, stepLimit: CountingLauncher.steps) }
        let group = Self.groupKey(cell.workload.name, cell.scale)
        let floor = floor(of: cell.workload)
        if cell.repetition > 1, let own = ownSteps[cell.store.name + "/" + group] {
            return TimeBox(seconds: nil, stepLimit: own, floor: floor, floorSeconds: floorSeconds)
        }
        let count = groupSteps[group]
        guard cell.repetition > 1, let count else {
            return TimeBox(
                seconds: configuration.timeBoxSeconds, stepLimit: count, floor: floor, floorSeconds: floorSeconds)
        }
        return TimeBox(seconds: nil, stepLimit: count, floor: floor, floorSeconds: floorSeconds)
    }

    private var floorSeconds: Double { configuration.floorSeconds ?? TimeBox.defaultFloorSeconds }

    /// `TimeBox.budgetSamples` for a workload judged against an app's budget in a clocked run; nil otherwise.
    private func floor(of workload: any Workload) -> Int? {
        configuration.timeBoxSeconds != nil && configuration.floorSeconds != nil && !workload.appBudgets.isEmpty
            ? TimeBox.budgetSamples : nil
    }

    /// Once every first-repetition cell of a (workload, scale) has run, runs again on exactly the group's count of
    /// steps each one that did more (it ran before a slower store set the count), replacing its result: every cell
    /// of the group is then measured and checked on the same steps.
    private func equalizeFirstRepetition(of workload: any Workload, at scale: Scale, index: Int, total: Int) throws {
        guard let count = groupSteps[Self.groupKey(workload.name, scale)] else { return }
        for position in results.cells.indices {
            let done = results.cells[position]
            guard done.workload == workload.name, done.scale == scale, done.repetition == 1,
                let steps = done.metrics?.steps, steps > count,
                let store = stores.first(where: { $0.name == done.store })
            else { continue }
            let cell = PlannedCell(store: store, workload: workload, scale: scale, repetition: 1)
            var again = try run(
                cell, index: index, total: total,
                box: TimeBox(seconds: nil, stepLimit: count, floor: floor(of: workload), floorSeconds: floorSeconds))
            // The run's time it took stays what the first measurement took, the fixture's load in it included.
            (again.runSeconds, again.fixtureSeconds) = (done.runSeconds, done.fixtureSeconds)
            results.cells[position] = again
            try save(results)
            observer.cellFinished(again, index: index, total: total)
        }
    }

    /// An error in one line: Foundation's file errors by their system cause and path.
    package static func describe(_ error: any Error) -> String {
        guard let cocoa = error as? CocoaError else { return "\(error)" }
        let cause: String
        if let underlying = cocoa.underlying.map({ $0 as NSError }), underlying.domain == NSPOSIXErrorDomain {
            cause = String(cString: strerror(Int32(underlying.code)))
        } else {
            cause = cocoa.localizedDescription
        }
        return cocoa.filePath.map { "\($0): \(cause)" } ?? cause
    }

    private func run(_ cell: PlannedCell, index: Int, total: Int, box: TimeBox) throws -> CellResult {
        var result = try runOnThisMachine(cell, index: index, total: total, box: box)
        result.bootID = bootID
        return result
    }

    private func runOnThisMachine(_ cell: PlannedCell, index: Int, total: Int, box: TimeBox) throws -> CellResult {
        guard cell.workload.supports(cell.store.type) else {
            return CellResult(
                store: cell.store.name, workload: cell.workload.name, scale: cell.scale, repetition: cell.repetition,
                status: .notApplicable, reason: "\(cell.store.name) has no \(cell.workload.name) capability")
        }
        let work = "\(cell.store.name)/\(cell.workload.name)"
        if let first = outOfBudget[work], cell.scale.records >= first.scale.records {
            return CellResult(
                store: cell.store.name, workload: cell.workload.name, scale: cell.scale, repetition: cell.repetition,
                status: .dnf,
                reason: "not run: repetition \(first.repetition) at \(first.scale) was stopped \(first.reason); this "
                    + "cell does at least as much")
        }
        let keep =
            configuration.keepStores && cell.repetition == configuration.repetitions(at: cell.scale)
            ? outputDirectory.appendingPathComponent("stores").appendingPathComponent(cell.store.name)
                .appendingPathComponent("\(cell.workload.name)-\(cell.scale)") : nil
        // Announced after the fixture is ready, so that a live display shows the cell, not the load.
        let (result, overBudget) = try launcher.measure(cell, box: box, keep: keep) {
            observer.cellStarted(cell, index: index, total: total)
        }
        if let overBudget { outOfBudget[work] = (cell.scale, cell.repetition, overBudget) }
        return result
    }
}
