import PersistenceBench

/// The budgets an app's UI lives within, for the workloads a user waits for at every input
/// (`Workload.judgedAgainstBudgets`): a frame at 60 Hz, and 100 ms.
extension MarkdownReport {
    private static let budgets: [(name: String, nanoseconds: UInt64)] = [
        ("a frame (16.7 ms)", LatencySummary.frameNanoseconds), ("100 ms", LatencySummary.lateNanoseconds),
    ]

    private static func judged(_ results: RunResults) -> [String] {
        orderedUnique(results.cells.map(\.workload)).filter {
            WorkloadCatalog.workload(named: $0)?.judgedAgainstBudgets == true
        }
    }

    /// Near the top: per judged workload and store, the largest scale whose median p99 stays within each budget.
    static func budgetSummary(_ results: RunResults, stores: [String], scales: [Scale]) -> [String] {
        var rows: [String] = []
        for workload in judged(results) {
            let cells = results.cells.filter { $0.workload == workload }
            for store in stores where cells.contains(where: { $0.store == store && $0.status != .notApplicable }) {
                let own = cells.filter { $0.store == store }
                let reaches = budgets.map { largestScale(within: $0.nanoseconds, own, scales: scales) }
                rows.append("| \(workload) | `\(store)` | " + reaches.joined(separator: " | ") + " |")
            }
        }
        guard !rows.isEmpty else { return [] }
        return [
            "## Within an app's budgets", "",
            "For the questions a user waits for at every input (each operation timed alone): per store, the largest "
                + "scale at which the p99 latency (median over repetitions) stays within a frame at 60 Hz and within "
                + "100 ms, at this scale and every smaller one measured, and where it first went over. A scale above "
                + "the largest measured is not guessed.",
            "",
            "| workload | store | " + budgets.map { "p99 within \($0.name)" }.joined(separator: " | ") + " |",
            "|---|---|" + String(repeating: "---|", count: budgets.count),
        ] + rows + [""]
    }

    /// "100k (over at 1M: p99 231 ms)", "1M (the largest measured)", "none (over at 10k: p99 20.1 ms)".
    private static func largestScale(within budget: UInt64, _ cells: [CellResult], scales: [Scale]) -> String {
        var within: Scale?
        for scale in scales {
            let atScale = cells.filter { $0.scale == scale }
            guard !atScale.isEmpty else { continue }
            let summary = CellSummary(cells: atScale)
            let stop: String
            if let p99 = summary.medianLatency(\.p99) {
                guard p99 * 1000 > Double(budget) else {
                    within = scale
                    continue
                }
                stop = "over at \(scale): p99 \(Quantity.formatTime(p99 / 1e6))"
            } else {
                stop = "\(summary.failure?.status == .error ? "error" : "DNF") at \(scale)"
            }
            return "\(within.map { "\($0)" } ?? "none") (\(stop))"
        }
        return within.map { "\($0) (the largest measured)" } ?? "–"
    }

    /// In a judged workload's section: each cell's latency in ms and its operations over each budget.
    static func budgetTable(_ workload: String, _ cells: [CellResult], stores: [String], scales: [Scale]) -> [String] {
        guard WorkloadCatalog.workload(named: workload)?.judgedAgainstBudgets == true else { return [] }
        var rows: [String] = []
        for store in stores {
            for scale in scales {
                let summary = CellSummary(cells: cells.filter { $0.store == store && $0.scale == scale })
                let latencies = summary.finished.compactMap(\.latency)
                guard !latencies.isEmpty else { continue }
                let percentiles = [\LatencySummary.p50, \.p99, \.max].compactMap(summary.medianLatency)
                    .map { formatSignificant($0 / 1000) }
                func over(_ count: (LatencySummary) -> Int?) -> String {
                    medianCount(latencies.compactMap(count)) + " of " + medianCount(latencies.map(\.count))
                }
                rows.append(
                    "| `\(store)` | \(scale) | \(percentiles.joined(separator: " / ")) | \(over(\.overFrame)) | "
                        + "\(over(\.overLate)) |")
            }
        }
        guard !rows.isEmpty else { return [] }
        return [
            "Against an app's budgets: each operation's latency in ms (p50 / p99 / max), and how many operations "
                + "took longer than a frame at 60 Hz (16.7 ms: a dropped frame) and than 100 ms (the result feels "
                + "late), of those timed (medians over repetitions):",
            "",
            "| store | scale | ms p50 / p99 / max | over 16.7 ms | over 100 ms |", "|---|---|---|--:|--:|",
        ] + rows + [""]
    }
}
