import PersistenceBench

extension ReadersMetrics: FiguresTable {
    static func table(_ cells: [CellResult], in results: RunResults, stores: [String], scales: [Scale]) -> [String] {
        MarkdownReport.readersTable(cells, stores: stores, scales: scales)
    }
}

extension MarkdownReport {
    /// For `get-readers`: per store, scale and level of readers, the reads alone and beside the writer, and the
    /// writer alone and beside them; nothing for other workloads.
    ///
    /// Medians over repetitions.
    static func readersTable(_ cells: [CellResult], stores: [String], scales: [Scale]) -> [String] {
        guard cells.contains(where: { $0.metrics?.figures?.readers != nil }) else { return [] }
        var rows: [String] = []
        for (store, scale, summary) in CellSummary.finished(cells, stores: stores, scales: scales) {
            let measured = summary.finished.compactMap(\.figures?.readers)
            guard let first = measured.first else { continue }
            let writerAlone = measured.map(\.writerAlone)
            for level in first.levels.map(\.readers) {
                let levels = measured.compactMap { $0.levels.first { $0.readers == level } }
                let (alone, beside) = (levels.map(\.alone), levels.map(\.besideWriter))
                let slowdown = median(
                    levels.map { $0.alone.readsPerSecond / max($0.besideWriter.readsPerSecond, 1e-9) })
                let commits = levels.map(\.writer)
                // The writer alone at this level where the run measured it there, else its one measurement.
                let levelWriters = zip(levels, writerAlone).map { $0.writerAlone ?? $1 }
                let writerSlowdown = median(
                    zip(levelWriters, commits).map { $0.commitsPerSecond / max($1.commitsPerSecond, 1e-9) })
                // Beside the writer, K readers and the writer are K + 1 threads.
                let label =
                    level + 1 > first.cores ? "\(level) (\(level + 1) threads on \(first.cores) cores)" : "\(level)"
                rows.append(
                    "| `\(store)` | \(scale) | \(label) | \(reads(alone)) | \(reads(beside)) | "
                        + "\(slowdown.map { String(format: "%.2f×", $0) } ?? "–") | \(p99(alone.map(\.latency))) · "
                        + "\(p99(beside.map(\.latency))) | \(p99(alone.map(\.firstPassLatency))) · "
                        + "\(p99(beside.map(\.firstPassLatency))) | \(p99(levelWriters.map(\.latency))) · "
                        + "\(p99(commits.map(\.latency))) | "
                        + "\(writerSlowdown.map { String(format: "%.2f×", $0) } ?? "–") |")
            }
        }
        let workload = cells.first?.workload ?? "get-readers"
        let charts = scales.filter { scale in
            cells.contains { $0.scale == scale && $0.metrics?.figures?.readers != nil }
        }
        .flatMap { scale in
            [
                "![\(workload) at \(scale): reads per second against K]"
                    + "(\(Charts.directoryName)/\(Charts.readersFileName(workload, scale))) "
                    + "![\(workload) at \(scale): read p99 against K]"
                    + "(\(Charts.directoryName)/\(Charts.readersLatencyFileName(workload, scale)))", "",
            ]
        }
        return table(
            "K reader threads, each its own reader, closed loop, all reading throughout each window: all readers' "
                + "reads/s (one thread's, slowest–fastest) alone, for as long as the writer took alone, and beside "
                + "the writer while it committed; how much "
                + "the writer slowed the readers (reads/s alone ÷ beside); read p99 in µs alone · beside, over every "
                + "thread's reads, then over first passes only (questions drawn afresh for the phase, where a "
                + "later pass asks again what the first warmed) (n: the fewest a repetition's p99 rests on); the writer's durable "
                + "commit p99 in µs alone (at this level, where the run measured it there) · beside the K readers, "
                + "and how much they slowed it (commits/s alone ÷ beside). Beside the writer each window lasts at "
                + "least \(formatSignificant(ReadersWorkload.floorSeconds)) s (the writer goes on inserting items no "
                + "reader asks for until then, untimed, and deletes them after). Every phase's questions are drawn "
                + "afresh. A level whose K readers and writer outnumber the machine's cores is "
                + "oversubscribed. Medians over repetitions:",
            header: [
                "store", "scale", "readers", "reads/s alone", "reads/s beside writer", "slowed by writer",
                "read p99 alone · beside", "first-pass read p99 alone · beside", "commit p99 alone · beside",
                "writer slowed by readers",
            ], rows: rows) + charts
    }

    /// All readers' reads/s and, in brackets, one thread's slowest–fastest: medians over repetitions.
    private static func reads(_ figures: [ReadFigures]) -> String {
        guard let total = median(figures.map(\.readsPerSecond)) else { return "–" }
        let slowest = median(figures.map(\.slowestThread)) ?? 0
        let fastest = median(figures.map(\.fastestThread)) ?? 0
        return "\(formatCount(total)) (\(formatCount(slowest))–\(formatCount(fastest)))"
    }

    /// The median p99 in µs, with the fewest samples one rests on: "n=" under 1,000 says how few.
    static func p99(_ summaries: [LatencySummary?]) -> String {
        let present = summaries.compactMap { $0 }
        guard let value = median(present.map(\.p99)), let fewest = present.map(\.count).min() else { return "–" }
        return formatSignificant(value) + (fewest < 1_000 ? " (n=\(fewest))" : "")
    }
}
