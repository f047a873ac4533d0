/// What a resumed run keeps of the interrupted one (`run --resume`): its finished cells, but for a cell stopped from
/// outside the run (`CellResult.interrupted`), which runs again.
///
/// On another machine than the one that ran them (another boot), a (workload, scale) group begun there and left
/// unfinished runs again here whole (`groupsRunAgain`), so that each group's stores are compared on one machine.
package struct Resumption {
    /// The finished cells kept, not run again.
    package let kept: [CellID: CellResult]
    /// The groups begun on another machine and left unfinished, in the plan's order.
    package let groupsRunAgain: [GroupID]

    package init(_ interrupted: RunResults, plan: RunPlan, bootID: String?) {
        let first = interrupted.environment.bootID
        let finished = interrupted.cells.filter { $0.interrupted != true }
        let planned = Dictionary(grouping: plan.cells, by: \.group).mapValues(\.count)
        let elsewhere = Set(
            Dictionary(grouping: finished, by: \.group).filter { group, cells in
                cells.count < planned[group] ?? 0 && cells.contains { ($0.bootID ?? first) != bootID }
            }.keys)
        groupsRunAgain = plan.groups.filter(elsewhere.contains)
        kept = Dictionary(
            finished.filter { !elsewhere.contains($0.group) }.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last }
        )
    }

    /// The cells the interrupted run finished, as `RunPlan.remaining(after:)` takes them.
    package static func done(_ interrupted: RunResults) -> Set<CellID> {
        Set(interrupted.cells.filter { $0.interrupted != true }.map(\.id))
    }
}
