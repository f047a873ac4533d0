import PersistenceBench

extension TwoProcessesMetrics: FiguresTable {
    static func table(_ cells: [CellResult], in results: RunResults, stores: [String], scales: [Scale]) -> [String] {
        MarkdownReport.twoProcessesTable(cells, stores: stores, scales: scales)
    }
}

extension MarkdownReport {
    /// For `two-processes`: per store and scale, each process's commits, their waits for the other's lock, the
    /// commits that failed or were lost, or the second process's refused open; nothing for other workloads.
    static func twoProcessesTable(_ cells: [CellResult], stores: [String], scales: [Scale]) -> [String] {
        guard cells.contains(where: { $0.metrics?.figures?.twoProcesses != nil }) else { return [] }
        var rows: [String] = []
        var policies: [String] = []
        for (store, scale, summary) in CellSummary.finished(cells, stores: stores, scales: scales) {
            let measured = summary.finished.compactMap(\.figures?.twoProcesses)
            guard let first = measured.first else { continue }
            if let policy = first.lockWaitPolicy, !policies.contains("`\(store)`: \(policy)") {
                policies.append("`\(store)`: \(policy)")
            }
            let (apps, others) = (measured.map(\.app), measured.map(\.secondProcess))
            let refusals = Set(others.compactMap(\.refusal))
            let second: String
            if let refusal = refusals.first {
                second =
                    others.allSatisfy({ $0.refusedByLock == true })
                    ? "refused (by design: its lock)" : "open failed: \(refusal)"
            } else {
                second = "\(p99(others.map(\.latency))) (\(formatCount(median(others.map(\.commitsPerSecond)) ?? 0))/s)"
            }
            let interleaved = apps.compactMap { app in app.interleaved.map { Double($0) / Double(max(app.commits, 1)) }
            }
            let overlap = median(interleaved).map { String(format: "%.0f %%", $0 * 100) } ?? "–"
            rows.append(
                "| `\(store)` | \(scale) | \(p99(measured.map(\.appAlone.latency))) · \(p99(apps.map(\.latency))) | "
                    + "\(slowest(apps.map(\.latency))) | \(second) | \(overlap) | "
                    + "\(waits(apps.map(\.lockWaits))) · \(waits(others.map(\.lockWaits))) | "
                    + "\(most(apps.map(\.failedIDs.count))) · \(most(others.map(\.failedIDs.count))) | "
                    + "\(most(apps.compactMap(\.lost))) · \(most(others.compactMap(\.lost))) |")
        }
        return table(
            "An app and its extension on one store: the app commits M items durably (a lookup before each) alone, "
                + "then M more while a second process opens the same store and commits M of its own; then the store "
                + "is opened again and every acknowledged commit looked for. Commit p99 in µs (n: the fewest a "
                + "repetition's rests on), the app's slowest commit beside the extension (median of the repetitions' "
                + "maxima, and their range: one stall, which the p99 hides), and the second process's commits/s, "
                + "medians over repetitions; the share of the app's commits beside it that were under way while the "
                + "extension was committing (from its first commit's start to its last one's end, one clock for "
                + "both processes; median); waits for "
                + "the other process's lock, as the store counts them (how many · seconds in all, app · second "
                + "process, median; – where the store counts none, and none can happen: it refused the second "
                + "open); commits that failed (not retried) and acknowledged commits missing or changed after "
                + "the reopen (app · second process, the most in any repetition). How each store waits: "
                + (policies.isEmpty ? "–" : policies.joined(separator: "; ")) + ".",
            header: [
                "store", "scale", "app commit p99 alone · beside", "app's slowest commit beside",
                "second process: commit p99 (commits/s)", "app commits during the second's",
                "lock waits app · second", "failed app · second", "lost app · second",
            ], rows: rows)
    }

    /// The median waits and seconds spent waiting: "12 · 0.034 s"; – where the store counted none.
    private static func waits(_ waits: [LockWaits?]) -> String {
        let counted = waits.compactMap { $0 }
        guard let count = median(counted.map { Double($0.waits) }), let seconds = median(counted.map(\.seconds))
        else { return "–" }
        let timeouts = counted.map(\.timeouts).max() ?? 0
        return "\(Int(count.rounded())) · \(formatSignificant(seconds)) s"
            + (timeouts > 0 ? " (\(timeouts) timed out)" : "")
    }

    /// The median of the repetitions' slowest commits, with their range: "104 ms (80.0–180)".
    private static func slowest(_ latencies: [LatencySummary?]) -> String {
        let maxima = latencies.compactMap { $0?.max }
        guard let middle = median(maxima), let low = maxima.min(), let high = maxima.max() else { return "–" }
        let text = Quantity.formatTime(middle / 1e6)
        return maxima.count > 1
            ? text + " (\(Quantity.formatTime(low / 1e6))–\(Quantity.formatTime(high / 1e6)))" : text
    }

    /// The most in any repetition, or – without figures.
    private static func most(_ counts: [Int]) -> String { counts.max().map { "\($0)" } ?? "–" }
}
