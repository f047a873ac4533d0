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

    /// For `read-while-import`: the reader's latency alone and during the import, its reads over 16 ms, and the
    /// writer's rate with the reader beside it and alone (the run's `import` cells, where it has them); nothing for
    /// other workloads.
    static func readWhileImportTable(
        _ cells: [CellResult], imports: [CellResult], stores: [String], scales: [Scale]
    ) -> [String] {
        guard cells.contains(where: { $0.metrics?.figures?.readWhileImport != nil }) else { return [] }
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
                medianCount(live.map { $0[keyPath: figure] })
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
        return table(
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

    /// For `observe` and `observe-burst`: how fresh results reached the observer and what observing cost; nothing
    /// for other workloads.
    static func observeTable(_ cells: [CellResult], stores: [String], scales: [Scale]) -> [String] {
        guard cells.contains(where: { $0.metrics?.figures?.observe != nil }) else { return [] }
        let rows = CellSummary.finished(cells, stores: stores, scales: scales).compactMap {
            store, scale, summary -> String? in
            let observed = summary.finished.compactMap(\.figures?.observe)
            guard !observed.isEmpty else { return nil }
            let fresh = [\LatencySummary.p50, \.p99, \.max].compactMap { summary.medianLatency(of: .fresh, $0) }
            func count(_ figure: (ObserveMetrics) -> Int) -> String { medianCount(observed.map(figure)) }
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
        return table(
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
