import PersistenceBench

/// The report's summary: per workload, which store is fastest at each scale and where that changes, and how far
/// each store got within the budgets. Computed from the run's own cells.
extension MarkdownReport {
    /// The store with the highest median throughput for one workload's `cells` at `scale`: never the harness floor,
    /// nor a store that answered from a maintained count (the ★ of the workload's table).
    static func fastest(in cells: [CellResult], stores: [String], at scale: Scale) -> (
        store: String, throughput: Double
    )? {
        stores.filter { $0 != StoreKind.harnessFloorName }.compactMap { store -> (String, Double)? in
            let summary = CellSummary(cells: cells.filter { $0.store == store && $0.scale == scale })
            guard !summary.answeredFromMaintainedCount, let median = summary.medianThroughput else { return nil }
            return (store, median)
        }.max { $0.1 < $1.1 }
    }

    static func strategySummary(_ results: RunResults, stores: [String], scales: [Scale]) -> [String] {
        guard scales.count > 1 || stores.count > 1 else { return [] }
        var rows: [String] = []
        for workload in orderedUnique(results.cells.map(\.workload)) {
            let cells = results.cells.filter { $0.workload == workload }
            let fastestByScale = scales.compactMap { scale in
                fastest(in: cells, stores: stores, at: scale).map { (scale, $0.store) }
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
            "Per workload: the fastest store at each scale this run measured (as ★ below: neither the harness floor "
                + "nor a maintained count), with the scales between which the lead changes; and the largest scale "
                + "each store finished within the budgets, with where it stopped.",
            "",
            "| workload | fastest | largest scale finished |", "|---|---|---|",
        ] + rows + [""]
    }

    /// "`json` at 10k–100k; `packed` from 1M (the lead changes between 100k and 1M)".
    private static func fastestText(_ fastestByScale: [(Scale, String)]) -> String {
        var runs: [(store: String, first: Scale, last: Scale)] = []
        for (scale, store) in fastestByScale {
            if let last = runs.last, last.store == store {
                runs[runs.count - 1].last = scale
            } else {
                runs.append((store, scale, scale))
            }
        }
        let parts = runs.map { run in
            "`\(run.store)` " + (run.first == run.last ? "at \(run.first)" : "at \(run.first)–\(run.last)")
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
