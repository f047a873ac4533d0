import PersistenceBench

extension ReadWhileImportMetrics: FiguresTable {
    /// For `read-while-import`: the reader's latency alone and during the import, its reads over 16 ms, and the
    /// writer's rate with the reader beside it and alone (the run's `import` cells, where it has them).
    static func table(_ cells: [CellResult], in results: RunResults, stores: [String], scales: [Scale]) -> [String] {
        let imports = results.cells.filter { $0.workload == ReadWhileImportWorkload.alone.name }
        let rows = CellSummary.finished(cells, stores: stores, scales: scales).compactMap {
            store, scale, summary -> String? in
            let live = summary.finished.compactMap(\.figures?.readWhileImport)
            guard !live.isEmpty else { return nil }
            func latencies(_ phase: KeyPath<ReadWhileImportMetrics, LatencySummary?>) -> String {
                let values = [\LatencySummary.p50, \.p99, \.p999, \.max].compactMap { percentile in
                    median(live.compactMap { $0[keyPath: phase]?[keyPath: percentile] })
                }
                return values.count == 4 ? values.map(formatSignificant).joined(separator: " / ") : "–"
            }
            func count(_ figure: KeyPath<ReadWhileImportMetrics, Int>) -> String {
                MarkdownReport.medianCount(live.map { $0[keyPath: figure] })
            }
            let during = summary.medianThroughput
            let alone = CellSummary(imports, store: store, scale: scale).medianThroughput
            let rates =
                (during.map(formatCount) ?? "–") + " · " + (alone.map(formatCount) ?? "–")
                + (during.flatMap { during in alone.map { String(format: " (%.2f×)", $0 / during) } } ?? "")
            return "| `\(store)` | \(scale) | \(latencies(\.readsAlone)) | \(latencies(\.readsDuringImport)) | "
                + "\(count(\.slowReadsDuringImport)) (\(count(\.readsInImport))) · \(count(\.slowReadsAlone)) | "
                + "\(rates) |"
        }
        return MarkdownReport.table(
            "The reader, open-loop, each read timed from its intended start (so a stall shows in every read it "
                + "delays): µs p50 / p99 / p99.9 / max alone and during the import; reads over 16 ms (a missed frame "
                + "at 60 Hz) of the reads meant to start during the import, and alone; the import's items/s with the "
                + "reader beside it and alone (`import`, on the same fixture), and the slowdown. Medians over "
                + "repetitions:",
            header: [
                "store", "scale", "reads alone", "reads during import", "> 16 ms during (of) · alone",
                "import items/s with reader · alone (slowdown)",
            ], rows: rows)
    }
}
