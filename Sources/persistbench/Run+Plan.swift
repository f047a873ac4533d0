import ArgumentParser
import Foundation
import PersistenceBench

extension Run {
    /// `--dry-run`: the cells this run (or what remains of the run to resume) would run, by (workload, scale)
    /// group, with an estimate of their time from the cells of --estimate-from's runs and the resumed run's own.
    func printPlan() throws {
        let measured = try estimateFrom.map { try ResultsFile.load($0).cells }
        let matrix: Matrix
        var done: Set<CellID> = []
        var resumed: [CellResult] = []
        if let resume {
            let interrupted = try ResultsFile.load(resume)
            matrix = try Matrix(interrupted.configuration, of: "the run to resume")
            resumed = interrupted.cells
            done = Resumption.done(interrupted)
        } else {
            matrix = try parsedMatrix()
        }
        let configuration = matrix.configuration
        let plan = RunPlan(configuration, stores: matrix.stores, workloads: matrix.workloads).remaining(after: done)
        let estimate = RunEstimate(runs: measured, resuming: resumed).byGroup(plan, configuration: configuration)
        print(
            "Plan: \(plan.count) cells\(resume == nil ? "" : " left") in \(estimate.groups.count) (workload, scale) "
                + "group(s)" + (configuration.shard.map { " (shard \($0) of the matrix)" } ?? "")
                + ", \(matrix.stores.count) stores, repetitions: \(configuration.repetitionsDescription)")
        let width = max(5, estimate.groups.map(\.group.description.count).max() ?? 0)
        print("  " + "group".padding(toLength: width, withPad: " ", startingAt: 0) + "  cells  estimate")
        for (group, cells, seconds) in estimate.groups {
            print(
                "  " + group.description.padding(toLength: width, withPad: " ", startingAt: 0)
                    + String(repeating: " ", count: max(1, 7 - "\(cells)".count))
                    + "\(cells)  \(seconds.map(Quantity.formatDuration) ?? "?")")
        }
        if let total = estimate.total {
            print(
                "Estimate: about \(Quantity.formatDuration(total)), from \(measured.map(\.count).reduce(resumed.count, +)) cells measured before "
                    + "(each one's time where it was measured at its scale; else its store and workload's growth over "
                    + "the scales measured, else its workload's time per record; each fixture's load once, estimated "
                    + "alike; a cell at most its time budget, and none of its store and workload after one over it): "
                    + "a rough figure, as the machine's speed and the memory budget decide the rest")
        } else {
            print("No estimate: nothing measured yet; name an earlier run with --estimate-from DIR")
        }
    }
}
