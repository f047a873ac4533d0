import PersistenceBench

extension RunSession {
    /// `run --dry-run`: the cells this run (or what remains of `interrupted`, the run to resume) would run, by
    /// (workload, scale) group, with an estimate of their time from the cells of `measured` (earlier runs) and the
    /// resumed run's own.
    package func plan(estimatedFrom measured: [[CellResult]], resuming interrupted: RunResults?) -> String {
        let estimate = estimate(from: measured, resuming: interrupted)
        let plan = estimate.cells
        var lines = [
            "Plan: \(plan.count) cells\(interrupted == nil ? "" : " left") in \(estimate.groups.count) (workload, "
                + "scale) group(s)" + (configuration.shard.map { " (shard \($0) of the matrix)" } ?? "")
                + ", \(stores.count) stores, repetitions: \(configuration.repetitionsDescription)"
        ]
        let width = max(5, estimate.groups.map(\.group.description.count).max() ?? 0)
        lines.append("  " + "group".padding(toLength: width, withPad: " ", startingAt: 0) + "  cells  estimate")
        for (group, cells, seconds) in estimate.groups {
            lines.append(
                "  " + group.description.padding(toLength: width, withPad: " ", startingAt: 0)
                    + String(repeating: " ", count: max(1, 7 - "\(cells)".count))
                    + "\(cells)  \(seconds.map(Quantity.formatDuration) ?? "?")")
        }
        if let shard = configuration.shard, let costs = shard.costs {
            let parts = Shard.estimatedSeconds(configuration, into: shard.count, costs: costs).enumerated().map {
                "\($0.offset + 1)/\(shard.count) \(Quantity.formatDuration($0.element))"
            }
            lines.append("Cut by the estimated time of each group: " + parts.joined(separator: ", "))
        }
        if let total = estimate.total {
            lines.append(
                "Estimate: about \(Quantity.formatDuration(total)), from \(estimate.measuredCells) cells measured before "
                    + "(each one's time where it was measured at its scale; else its store and workload's growth over "
                    + "the scales measured, else its workload's time per record; each fixture's load once, estimated "
                    + "alike; a cell at most its time budget, and none of its store and workload after one over it): "
                    + "a rough figure, as the machine's speed and the memory budget decide the rest")
        } else {
            lines.append("No estimate: nothing measured yet; name an earlier run with --estimate-from DIR")
        }
        if let place = configuration.fixtureCache {
            lines.append(
                "Fixtures: \(estimate.fixturesHeld) of the \(estimate.fixturesNeeded) the run loads are in \(place.directory) already "
                    + "(counted as no load; their files' digest is checked when the run reaches them)")
        }
        return lines.joined(separator: "\n")
    }
}
