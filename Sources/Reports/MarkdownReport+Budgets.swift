import Foundation
import PersistenceBench

/// The budgets an app lives within (a frame, a keystroke, a launch): the table of how far each store stays within
/// each (`Workload.appBudgets`), and in the sections of the workloads a user waits for at every input
/// (`Workload.judgedAgainstBudgets`) the operations over a frame and over 100 ms.
extension MarkdownReport {
    /// Near the top: per store and each budget the run's workloads declare (`Workload.appBudgets`), the largest
    /// scale whose median figure stays within it, at that scale and every smaller one measured; beyond the largest
    /// measured, from the power law of the figure against N, marked extrapolated.
    static func budgetSummary(_ results: RunResults, stores: [String], scales: [Scale]) -> [String] {
        let judged = BudgetReach.budgets(of: results)
        let limit = results.configuration.memoryLimitBytes
        // The memory columns: this run's own cap, then each capped run joined to it (`merge --capped`).
        let caps =
            (limit.map { [(name: "every workload within \(Quantity.formatBytes($0))", cells: results.cells)] } ?? [])
            + (results.cappedRuns ?? []).map {
                (
                    name: "every workload within \(Quantity.formatBytes($0.memoryLimitBytes)) (capped run"
                        + ($0.finished ? ")" : ", stopped part-way)"), cells: $0.cells
                )
            }
        guard !judged.isEmpty || !caps.isEmpty else { return [] }
        let rows = stores.compactMap { store -> String? in
            var reaches = judged.map { workload, budget in
                let cells = results.cells.cells(of: StoreWorkload(store: store, workload: workload))
                // A store that refused the work a budget judges (`two-processes`' extension) did other work.
                let summary = CellSummary(cells: cells)
                if let refusal = summary.secondProcessRefusal { return refusal }
                guard let reach = BudgetReach(budget, cells, scales: scales)?.description else { return "–" }
                // A figure resting on a count the store keeps (`lmdb`'s observed count) says so in every column.
                return reach + (summary.answeredFromMaintainedCount ? " · maintained count (O(1))" : "")
            }
            for cap in caps {
                let cells = cap.cells.filter { $0.store == store }
                reaches.append(
                    largestScaleUnderLimit(
                        cells, scales: orderedUnique(cells.map(\.scale)).sorted { $0.records < $1.records }))
            }
            guard reaches.contains(where: { $0 != "–" }) else { return nil }
            return "| `\(store)` | " + reaches.joined(separator: " | ") + " |"
        }
        guard !rows.isEmpty else { return [] }
        let sources = orderedUnique(judged.map(\.1.source))
        return [
            "## Within an app's budgets", "",
            "Per store, the largest scale at which it stays within each budget an app lives by: the median over "
                + "repetitions of the figure named, at that scale and every smaller one measured, and where it first "
                + "went over. Beside it, the figure it rests on: \"p99 of n\" (or the p99.9, or the max, that the column "
                + "names) with the samples of a repetition (the fewest of its repetitions) and how many of them went "
                + "over the limit (median); from fewer than \(AppBudget.fewestForPercentile) samples (a p99.9: "
                + "\(formatWhole(AppBudget.fewestForTailPercentile))) the slowest, \"max of n\". A loop judged against "
                + "a budget does at least \(formatWhole(TimeBox.budgetSamples)) steps (or all it has) unless it "
                + "stops on its own time (`--floor-time`). Where a store stayed within at the largest scale "
                + "measured, the power law of the figure against N says where it would cross, marked extrapolated, "
                + "with the exponent's standard error (no fit where that error exceeds half the exponent): only "
                + "from \(BudgetReach.fewestScalesForFit) scales or more "
                + "measured on one machine with as many samples each (or at least "
                + "\(formatWhole(TimeBox.budgetSamples)) each), and never beyond "
                + "\(Int(BudgetReach.extrapolationReach))× the largest scale measured; a store that falls off a "
                + "cliff beyond the scales measured is not foreseen. The limits: "
                + sources.joined(separator: "; ") + "."
                + (limit.map {
                    " Every cell of this run ran under a memory limit of \(Quantity.formatBytes($0)), page cache "
                        + "included (`run --memory-limit`): the last column gives the largest scale at which every "
                        + "workload of the store finished under it, and the first it was killed at."
                } ?? "")
                + (results.cappedRuns.map { runs in
                    " The columns \"every workload within\" … \"(capped run)\" come from runs of the same build and seed "
                        + "made under a memory limit, page cache included (`run --memory-limit`, joined by `merge "
                        + "--capped`: " + runs.map { "`\($0.source)`" }.joined(separator: ", ")
                        + "): the largest scale at which every workload of the store finished under the cap, and the "
                        + "first it was killed at; a run stopped part-way, from the cells it ran."
                } ?? ""),
            "",
            "| store | " + (judged.map(\.1.name) + caps.map(\.name)).joined(separator: " | ") + " |",
            "|---|" + String(repeating: "---|", count: judged.count + caps.count),
        ] + rows + [""]
            + (BudgetChart.isDrawn(results)
                ? [
                    "Each budget's figure against scale, one panel per budget under its limit, with each store's "
                        + "fit continued (dashed) where the table extrapolates:", "",
                    "![The budgets' figures against scale](\(Charts.directoryName)/\(BudgetChart.fileName))", "",
                ]
                : [])
    }

    /// Under `run --memory-limit`: "100k (killed at 1M: insert, scan)", "≥ 1M measured", "none (killed at 10k: …)";
    /// a cell that did not finish for another reason (its time budget, thrashing under the cap) ends it too: "300k
    /// (DNF at 1M: update)"; in a run stopped part-way, a scale where some workload of the store has not run yet
    /// ends it: "≥ 300k measured (1M not all run)".
    private static func largestScaleUnderLimit(_ cells: [CellResult], scales: [Scale]) -> String {
        let workloads = Set(cells.map(\.workload))
        var within: Scale?
        for scale in scales {
            let atScale = cells.filter { $0.scale == scale && $0.status != .notApplicable }
            guard !atScale.isEmpty else { continue }
            let killed = orderedUnique(
                atScale.filter { $0.reason?.hasPrefix(CellResult.killedAtMemoryLimit) == true }.map(\.workload))
            guard killed.isEmpty else {
                return "\(within.map { "\($0)" } ?? "none") (killed at \(scale): \(killed.joined(separator: ", ")))"
            }
            let unfinished = orderedUnique(atScale.filter { $0.status != .ok }.map(\.workload))
            guard unfinished.isEmpty else {
                return "\(within.map { "\($0)" } ?? "none") (DNF at \(scale): \(unfinished.joined(separator: ", ")))"
            }
            guard Set(atScale.map(\.workload)) == workloads else {
                return (within.map { "≥ \($0) measured" } ?? "none measured") + " (\(scale) not all run)"
            }
            within = scale
        }
        return within.map { "≥ \($0) measured" } ?? "–"
    }

    /// In a judged workload's section: each cell's latency in ms and its operations over each budget.
    static func budgetTable(_ workload: String, _ cells: [CellResult], stores: [String], scales: [Scale]) -> [String] {
        guard WorkloadCatalog.workload(named: workload)?.judgedAgainstBudgets == true else { return [] }
        let rows = CellSummary.finished(cells, stores: stores, scales: scales).compactMap {
            store, scale, summary -> String? in
            let latencies = summary.finished.compactMap(\.phase.latency)
            guard !latencies.isEmpty else { return nil }
            let percentiles = [\LatencySummary.p50, \.p99, \.max].compactMap(summary.medianLatency)
                .map { formatSignificant($0 / 1000) }
            func over(_ count: (LatencySummary) -> Int?) -> String {
                medianCount(latencies.compactMap(count)) + " of " + medianCount(latencies.map(\.count))
            }
            return "| `\(store)` | \(scale) | \(percentiles.joined(separator: " / ")) | \(over(\.overFrame)) | "
                + "\(over(\.overLate)) |"
        }
        guard !rows.isEmpty else { return [] }
        return table(
            "Against an app's budgets: each operation's latency in ms (p50 / p99 / max), and how many operations "
                + "took longer than a frame at 60 Hz (16.7 ms: a dropped frame) and than 100 ms (the result feels "
                + "late), of those timed (medians over repetitions):",
            header: ["store", "scale", "ms p50 / p99 / max", "over 16.7 ms", "over 100 ms"],
            alignments: ["---", "---", "---", "--:", "--:"], rows: rows)
    }
}
