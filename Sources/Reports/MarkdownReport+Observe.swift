import PersistenceBench

extension ObserveMetrics: FiguresTable {
    /// For `observe` and `observe-burst`: how fresh results reached the observer and what observing cost.
    static func table(_ cells: [CellResult], in results: RunResults, stores: [String], scales: [Scale]) -> [String] {
        let rows = CellSummary.finished(cells, stores: stores, scales: scales).compactMap {
            store, scale, summary -> String? in
            let observed = summary.finished.compactMap(\.figures?.observe)
            guard !observed.isEmpty else { return nil }
            let fresh = [\LatencySummary.p50, \.p99, \.max].compactMap { summary.medianLatency(of: .fresh, $0) }
            func count(_ figure: (ObserveMetrics) -> Int) -> String { MarkdownReport.medianCount(observed.map(figure)) }
            let cpu = median(observed.map { $0.observerCPUSeconds / Double(max($0.commits, 1)) }) ?? 0
            let commit = [\LatencySummary.p50, \.p99].compactMap { percentile in
                median(observed.compactMap { $0.commitLatency?[keyPath: percentile] })
            }
            return "| `\(store)` | \(scale) | "
                + (commit.count == 2 ? commit.map(formatSignificant).joined(separator: " / ") : "–") + " | "
                + (fresh.count == 3 ? fresh.map(formatSignificant).joined(separator: " / ") : "–")
                + " | \(count(\.commits)) (\(count(\.commitsChangingResult))) | "
                + "\(count(\.notifications)) · \(count(\.requeries)) · \(count { $0.notifications - $0.requeries }) | "
                + "\(Quantity.formatTime(cpu)) |"
        }
        return MarkdownReport.table(
            "Observation: each commit's own time (µs p50 / p99: what the store's mechanism does on the writer's "
                + "thread before the commit returns is in it); the time from a commit's return to the observer "
                + "holding its result (`FRESH`, µs p50 / p99 / max; paced: after each commit that changed the "
                + "result; burst: after the last commit); the commits the store told the observer of and the "
                + "queries it ran (burst: notices answered by one query are coalesced); CPU of every thread but "
                + "the writer's. Medians over repetitions:",
            header: [
                "store", "scale", "commit µs", "fresh µs", "commits (changing the result)",
                "notices · re-queries · coalesced", "observer CPU per commit",
            ], rows: rows)
    }
}
