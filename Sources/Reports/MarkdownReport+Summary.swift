import PersistenceBench

/// The report's summary: per workload, which store is fastest at each scale and where that changes, and how far
/// each store got within the budgets. Computed from the run's own cells.
extension MarkdownReport {
    /// The store with the highest median throughput for one workload's `cells` at `scale`: never the harness floor,
    /// nor a store that answered from a maintained count (the ★ of the workload's table).
    static func fastest(in cells: [CellResult], stores: [String], at scale: Scale) -> (
        store: String, throughput: Double
    )? {
        candidates(in: cells, stores: stores, at: scale).max { $0.median < $1.median }.map { ($0.store, $0.median) }
    }

    /// The fastest store at `scale`, then the stores within its noise: those whose fastest repetition reaches the
    /// fastest store's slowest, so that the summary does not call a lead that the repetitions do not show.
    static func leaders(in cells: [CellResult], stores: [String], at scale: Scale) -> [String] {
        let ranked = candidates(in: cells, stores: stores, at: scale).sorted { $0.median > $1.median }
        guard let first = ranked.first else { return [] }
        return [first.store] + ranked.dropFirst().filter { $0.fastest >= first.slowest }.map(\.store)
    }

    /// Every store that may lead at `scale`, with its median, slowest and fastest repetition's throughput.
    private static func candidates(in cells: [CellResult], stores: [String], at scale: Scale) -> [(
        store: String, median: Double, slowest: Double, fastest: Double
    )] {
        stores.filter { $0 != StoreKind.harnessFloorName }.compactMap { store in
            let summary = CellSummary(cells, store: store, scale: scale)
            guard summary.unranked == nil, let median = summary.medianThroughput,
                let slowest = summary.throughputs.min(), let fastest = summary.throughputs.max()
            else { return nil }
            return (store, median, slowest, fastest)
        }
    }

    static func strategySummary(_ results: RunResults, stores: [String], scales: [Scale]) -> [String] {
        guard scales.count > 1 || stores.count > 1 else { return [] }
        var rows: [String] = []
        for workload in orderedUnique(results.cells.map(\.workload)) {
            let cells = results.cells.filter { $0.workload == workload }
            let fastestByScale = scales.compactMap { scale -> (Scale, [String])? in
                let leading = leaders(in: cells, stores: stores, at: scale)
                return leading.isEmpty ? nil : (scale, leading)
            }
            guard !fastestByScale.isEmpty else { continue }
            // The scales this workload ran at: one measured only at the smaller scales did not stop short of the rest.
            let measured = scales.filter { scale in cells.contains { $0.scale == scale } }
            rows.append(
                "| \(workload) | \(fastestText(fastestByScale)) | \(reachText(cells, stores: stores, scales: measured)) |"
            )
        }
        guard !rows.isEmpty else { return [] }
        return [
            "## Summary: the fastest store, and where each stops", "",
            "Per workload: the fastest store at each scale this run measured (as ★ below: not the harness floor, "
                + "a maintained count or a store that refused the work), with the scales between which the lead changes and the stores whose "
                + "repetitions reach the leader's slowest (a lead the repetitions do not show is not called); and the largest scale "
                + "each store finished within the budgets, with where it stopped.",
            "",
            "| workload | fastest | largest scale finished |", "|---|---|---|",
        ] + rows + [""]
    }

    /// "`json` at 10k–100k; `packed` at 1M (the lead changes between 100k and 1M)".
    ///
    /// A store stays in the lead while it is among a scale's leaders (the fastest, or within its noise); those within
    /// noise are named.
    private static func fastestText(_ leadersByScale: [(Scale, [String])]) -> String {
        var runs: [(store: String, first: Scale, last: Scale, tied: [String])] = []
        for (scale, leading) in leadersByScale {
            if let last = runs.last, leading.contains(last.store) {
                runs[runs.count - 1].last = scale
                runs[runs.count - 1].tied += leading.filter { $0 != last.store && !last.tied.contains($0) }
            } else {
                runs.append((leading[0], scale, scale, Array(leading.dropFirst())))
            }
        }
        let parts = runs.map { run in
            "`\(run.store)` " + (run.first == run.last ? "at \(run.first)" : "at \(run.first)–\(run.last)")
                + (run.tied.isEmpty
                    ? "" : " (within the repetitions' range: \(run.tied.map { "`\($0)`" }.joined(separator: ", ")))")
        }
        let changes = zip(runs, runs.dropFirst()).map { "between \($0.last) and \($1.first)" }
        return parts.joined(separator: "; ")
            + (changes.isEmpty ? "" : " (the lead changes \(changes.joined(separator: ", ")))")
    }

    /// "`json` 100k (DNF at 1M: over the time budget …) · every other store 1M": the stores that got less far than
    /// the run's largest scale one by one, with where they stopped.
    private static func reachText(_ cells: [CellResult], stores: [String], scales: [Scale]) -> String {
        var reachedTop: [String] = []
        var shortOfIt: [String] = []
        for store in stores {
            let own = cells.filter { $0.store == store }
            guard !own.isEmpty, !own.allSatisfy({ $0.status == .notApplicable }) else { continue }
            let finished = scales.filter { scale in own.contains { $0.scale == scale && $0.status == .ok } }
            if finished.last == scales.last {
                reachedTop.append(store)
                continue
            }
            var text = "`\(store)` \(finished.last.map { "\($0)" } ?? "none")"
            let stopped = own.first { cell in
                (finished.last.map { cell.scale > $0 } ?? true) && (cell.status == .dnf || cell.status == .error)
            }
            if let stopped {
                let reason = (stopped.reason ?? "").split(separator: ";").first.map(String.init) ?? ""
                text +=
                    " (\(stopped.status == .error ? "error" : "DNF") at \(stopped.scale)"
                    + (reason.isEmpty ? "" : ": \(reason.replacingOccurrences(of: "|", with: "\\|"))") + ")"
            }
            shortOfIt.append(text)
        }
        guard let top = scales.last, !reachedTop.isEmpty else { return shortOfIt.joined(separator: " · ") }
        let rest =
            shortOfIt.isEmpty
            ? "every store \(top)" : "\(reachedTop.count == 1 ? "`\(reachedTop[0])`" : "every other store") \(top)"
        return (shortOfIt + [rest]).joined(separator: " · ")
    }
}
