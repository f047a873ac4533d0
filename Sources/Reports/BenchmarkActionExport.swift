import Foundation
import PersistenceBench

/// The JSON that the github-action-benchmark action reads with `tool: customSmallerIsBetter`: one entry per
/// (store, workload, scale) that finished, its value the median time per operation in microseconds, its range half
/// the repetitions' spread, and in `extra` what a reader of the chart needs to trust the point (repetitions, the
/// labels the report gives, the commit and machine).
///
/// The action keeps the history and draws one chart per entry.
package enum BenchmarkActionExport {
    /// One point of the action's chart.
    struct Entry: Encodable {
        let name: String
        let unit: String
        let value: Double
        let range: String
        let extra: String
    }

    package static func render(_ results: RunResults) throws -> String {
        var entries: [Entry] = []
        for scale in results.configuration.scales {
            for workload in results.configuration.workloads {
                for store in results.configuration.stores {
                    let cells = results.cells.cells(of: SeriesID(store: store, workload: workload, scale: scale))
                    let summary = CellSummary(cells: cells)
                    let times = summary.timesPerOperation.map { $0 * 1e6 }
                    guard let median = median(times), let low = times.min(), let high = times.max() else { continue }
                    entries.append(
                        Entry(
                            name: "\(store) \(workload) \(scale)", unit: "µs/op", value: rounded(median),
                            range: "± \(rounded((high - low) / 2))",
                            extra: extra(summary, of: cells.count, store: store, workload: workload, results)))
                }
            }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(entries), as: UTF8.self) + "\n"
    }

    /// "3 of 3 repetitions; maintained count; commit abc1234; AMD EPYC, 2 cores".
    private static func extra(
        _ summary: CellSummary, of repetitions: Int, store: String, workload: String, _ results: RunResults
    ) -> String {
        var parts = ["\(summary.finished.count) of \(repetitions) repetitions"]
        if store == StoreKind.harnessFloorName { parts.append("the harness floor") }
        if summary.answeredFromMaintainedCount { parts.append("maintained count") }
        if !summary.timeBoxedOperations.isEmpty { parts.append("time-boxed") }
        if WorkloadCatalog.workload(named: workload)?.measuresMachine == true { parts.append("the machine's limit") }
        let environment = results.environment
        parts.append("commit \(environment.gitCommit)")
        parts.append("\(environment.cpuModel), \(environment.cores) cores")
        return parts.joined(separator: "; ")
    }

    /// Three significant digits: the repetitions do not support more.
    private static func rounded(_ value: Double) -> Double {
        guard value > 0 else { return 0 }
        let scale = pow(10, 2 - floor(log10(value)))
        return (value * scale).rounded() / scale
    }
}
