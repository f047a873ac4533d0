import PersistenceBench

extension PinnedReaderMetrics: FiguresTable {
    static func table(_ cells: [CellResult], in results: RunResults, stores: [String], scales: [Scale]) -> [String] {
        MarkdownReport.pinnedReaderTable(cells, stores: stores, scales: scales)
    }
}

extension MarkdownReport {
    /// For `pinned-reader`: per store and scale, the store's files before, at their largest during the import beside
    /// the pinned snapshot, after its release and after the settle; nothing for other workloads.
    ///
    /// Medians over repetitions.
    static func pinnedReaderTable(_ cells: [CellResult], stores: [String], scales: [Scale]) -> [String] {
        guard cells.contains(where: { $0.metrics?.figures?.pinnedReader != nil }) else { return [] }
        var rows: [String] = []
        for (store, scale, summary) in CellSummary.finished(cells, stores: stores, scales: scales) {
            let measured = summary.finished.compactMap(\.figures?.pinnedReader)
            guard let first = measured.first else { continue }
            func bytes(_ figure: (PinnedReaderMetrics) -> Int64) -> String {
                median(measured.map { Double(figure($0)) }).map { Quantity.formatBytes(Int64($0)) } ?? "–"
            }
            // The file that grew the most over its start, in the first repetition.
            let grown = first.largest.max {
                ($0.value - (first.start[$0.key] ?? 0)) < ($1.value - (first.start[$1.key] ?? 0))
            }
            let settled = median(measured.map { Double(PinnedReaderMetrics.total($0.settled)) }) ?? 0
            let ratio = median(measured.map { Double($0.largestTotal) }).map { $0 / max(settled, 1) }
            rows.append(
                "| `\(store)` | \(scale) | \(formatCount(Double(first.imported))) | "
                    + "\(bytes { PinnedReaderMetrics.total($0.start) }) | \(bytes(\.largestTotal))"
                    + (grown.map { " (`\($0.key)` \(Quantity.formatBytes($0.value)))" } ?? "") + " | "
                    + "\(bytes { PinnedReaderMetrics.total($0.released) }) | "
                    + "\(bytes { PinnedReaderMetrics.total($0.settled) }) | "
                    + "\(ratio.map { String(format: "%.2f×", $0) } ?? "–") |")
        }
        let charts = scales.filter { scale in
            cells.contains { $0.scale == scale && $0.metrics?.figures?.pinnedReader != nil }
        }
        .flatMap { scale in
            [
                "![pinned-reader at \(scale): the store's files over the import]"
                    + "(\(Charts.directoryName)/\(Charts.pinnedReaderFileName(scale)))", "",
            ]
        }
        return table(
            "A reader holds one read snapshot open while min(N, 100k) items are imported in commits of 1,000, then "
                + "lets go; the store then settles (its WAL checkpointed and truncated). The store's files in all "
                + "(logical sizes): before, at their largest after any commit of the import (and the file that grew "
                + "the most, at its largest, in the first repetition), after the release, after the settle, and the "
                + "largest over the settled size. Medians over repetitions:",
            header: [
                "store", "scale", "imported", "files before", "largest during the import", "after the release",
                "after the settle", "largest ÷ settled",
            ], rows: rows) + charts
    }
}
