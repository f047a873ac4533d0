/// The time box of each cell of a run (`TimeBox`): in a counted run `CountingLauncher.steps` and no clock; in the
/// first repetition the clock and the fewest steps a cell of its group did so far; later, once the group's count is
/// set, that count (or the store's own, where it stopped short of its budget floor) and no clock.
///
/// A workload judged against an app's budget has the budget floor. Two builds timed in turn (`perCell`) are compared
/// cell by cell, not store against store: there each cell's first run, on the clock, sets the count its later runs do,
/// with no budget floor.
struct StepCounts {
    private let configuration: RunConfiguration
    private let perCell: Bool
    /// Per group whose workload is a loop of steps, the fewest steps a first-repetition cell did: the count every
    /// cell of the group does.
    private var groups: [GroupID: Int] = [:]
    /// Per store's series whose first repetition stopped short of its budget floor on its own time
    /// (`TimeBox.floor`): its own count of steps, which its later repetitions do; its group's count is the others'.
    ///
    /// Counted per cell (`perCell`): every series' count, from its first run that did steps.
    private var own: [SeriesID: Int] = [:]

    init(_ configuration: RunConfiguration, perCell: Bool = false) {
        self.configuration = configuration
        self.perCell = perCell
    }

    func box(for cell: PlannedCell) -> TimeBox {
        if configuration.counted == true { return TimeBox(seconds: nil, stepLimit: CountingLauncher.steps) }
        if perCell {
            return TimeBox(
                seconds: own[cell.id.series] == nil ? configuration.timeBoxSeconds : nil, stepLimit: own[cell.id.series]
            )
        }
        let floor = floor(of: cell.workload)
        if cell.repetition > 1, let own = own[cell.id.series] {
            return TimeBox(seconds: nil, stepLimit: own, floor: floor, floorSeconds: floorSeconds)
        }
        let count = groups[cell.group]
        guard cell.repetition > 1, let count else {
            return TimeBox(
                seconds: configuration.timeBoxSeconds, stepLimit: count, floor: floor, floorSeconds: floorSeconds)
        }
        return TimeBox(seconds: nil, stepLimit: count, floor: floor, floorSeconds: floorSeconds)
    }

    /// Takes in a finished cell's steps.
    mutating func record(_ result: CellResult) {
        if perCell {
            own[result.series] = own[result.series] ?? result.metrics?.verification.steps
            return
        }
        guard result.repetition == 1, let steps = result.metrics?.verification.steps else { return }
        if result.metrics?.verification.stoppedShort == true {
            own[result.series] = steps
        } else {
            groups[result.group] = min(steps, groups[result.group] ?? steps)
        }
    }

    /// The box on which a first-repetition cell of `group` that did more than its group's count runs again: the
    /// count, no clock.
    ///
    /// Nil when `result` did no more, or its group has no count.
    func rerun(_ result: CellResult, of workload: any Workload) -> TimeBox? {
        guard result.repetition == 1, let count = groups[result.group], let steps = result.metrics?.verification.steps,
            steps > count
        else { return nil }
        return TimeBox(seconds: nil, stepLimit: count, floor: floor(of: workload), floorSeconds: floorSeconds)
    }

    private var floorSeconds: Double { configuration.floorSeconds ?? TimeBox.defaultFloorSeconds }

    /// `TimeBox.budgetSamples` for a workload judged against an app's budget in a clocked run; nil otherwise.
    private func floor(of workload: any Workload) -> Int? {
        configuration.timeBoxSeconds != nil && configuration.floorSeconds != nil && !workload.appBudgets.isEmpty
            ? TimeBox.budgetSamples : nil
    }
}

/// Per store and workload, the first cell that ran out of a budget: the same work at this scale and above is not
/// run again, since it only grows.
struct BudgetSkip {
    private var first: [StoreWorkload: (scale: Scale, repetition: Int, reason: String)] = [:]

    /// Why `cell` is not run, or nil.
    func reason(toSkip cell: PlannedCell) -> String? {
        guard let first = first[StoreWorkload(store: cell.store.name, workload: cell.workload.name)],
            cell.scale.records >= first.scale.records
        else { return nil }
        return "not run: repetition \(first.repetition) at \(first.scale) was stopped \(first.reason); this cell "
            + "does at least as much"
    }

    mutating func record(_ cell: PlannedCell, overBudget reason: String) {
        first[StoreWorkload(store: cell.store.name, workload: cell.workload.name)] = (
            cell.scale, cell.repetition, reason
        )
    }
}
