import Foundation
import PersistenceBench

// The tables a workload's own figures add under its section: latencies per kind, first rounds, reads during an import, observed commits.
extension MarkdownReport {
    /// For workloads that time kinds of operation apart (YCSB, `open`), each kind's latency (YCSB's names for
    /// YCSB's kinds), per store and scale, in the order the workload declares them (`WorkloadReport`; a kind in the
    /// results it does not declare after them); nothing for the others.
    static func operationLatencyTable(
        _ cells: [CellResult], kinds declared: [OperationKind], stores: [String], scales: [Scale]
    ) -> [String] {
        let present = Set(
            cells.compactMap { $0.metrics?.phase.latencyByOperation?.keys }.joined().map(OperationKind.init))
        let kinds =
            declared.filter(present.contains) + present.subtracting(declared).sorted { $0.rawValue < $1.rawValue }
        guard !kinds.isEmpty else { return [] }
        let rows = CellSummary.finished(cells, stores: stores, scales: scales).map { store, scale, summary in
            let columns = kinds.map { kind in Self.latencies(of: kind, in: summary) }
            return "| `\(store)` | \(scale) | " + columns.joined(separator: " | ") + " |"
        }
        return table(
            "Latency by kind of operation, µs, p50 / p95 / p99 / p99.9 (median over repetitions; YCSB's kinds as YCSB "
                + "names them), with n, the fewest samples a repetition's percentiles rest on: a p95 needs 20 samples, "
                + "a p99 100 and a p99.9 1,000 to be more than the slowest, so under that it reads – and the max "
                + "(median over repetitions of each one's slowest) is given.",
            header: ["store", "scale"] + kinds.map { "[\($0)]" }, rows: rows)
    }

    /// One kind's percentiles in a cell of the latency table, each only where its n (the fewest of a repetition)
    /// supports it, then n (and the max where the p99.9 is not given).
    static func latencies(of kind: OperationKind, in summary: CellSummary) -> String {
        let percentiles: [(KeyPath<LatencySummary, Double>, needs: Int)] = [
            (\.p50, 1), (\.p95, 20), (\.p99, 100), (\.p999, 1_000),
        ]
        guard let n = summary.finished.compactMap({ $0.phase.latencyByOperation?[kind.rawValue]?.count }).min() else {
            return "–"
        }
        let values = percentiles.map { percentile, needs -> String in
            guard n >= needs, let value = summary.medianLatency(of: kind, percentile) else { return "–" }
            return formatSignificant(value)
        }
        let maximum = n < 1_000 ? summary.medianLatency(of: kind, \.max).map { ", max " + formatSignificant($0) } : nil
        return values.joined(separator: " / ") + " (n \(formatWhole(n))\(maximum ?? ""))"
    }

    /// For a workload that repeats a round of questions (`count-where`, `count-range`): the first round's time per
    /// question beside the later rounds', per store and scale, where a cell asked more than one round; nothing
    /// otherwise.
    static func firstRoundTable(_ cells: [CellResult], stores: [String], scales: [Scale]) -> [String] {
        let rows = CellSummary.finished(cells, stores: stores, scales: scales).compactMap {
            store, scale, summary -> String? in
            let first = median(
                summary.finished.compactMap { metrics in
                    metrics.phase.firstRound.map { $0.seconds / Double(max(1, $0.operations)) }
                })
            guard let first, let later = median(summary.finished.compactMap(\.phase.laterRoundsSecondsPerOperation)),
                let rounds = median(
                    summary.finished.compactMap { metrics in
                        metrics.phase.firstRound.map {
                            Double(metrics.phase.operations) / Double(max(1, $0.operations))
                        }
                    })
            else { return nil }
            return "| `\(store)` | \(scale) | \(formatSignificant(rounds)) | \(formatSignificant(first * 1e6)) | "
                + "\(formatSignificant(later * 1e6)) | \(formatSignificant(first / later))× |"
        }
        guard !rows.isEmpty else { return [] }
        return table(
            "The first round against the later ones, µs per question (median over repetitions): every store of a "
                + "(scale, repetition) asks the same rounds; the first may find the store's pages cold.",
            header: ["store", "scale", "rounds", "first round", "later rounds", "first / later"], rows: rows)
    }
}
