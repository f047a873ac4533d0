import Foundation
import PersistenceBench

/// `results.csv`: one row per cell repetition.
///
/// The README documents every column.
package enum CSVReport {
    package static let columns = [
        "store", "workload", "scale", "repetition", "status", "reason", "timed_seconds", "operations",
        "ops_per_second", "latency_p50_us", "latency_p95_us", "latency_p99_us", "latency_p999_us", "latency_max_us",
        "user_cpu_seconds", "sys_cpu_seconds", "peak_rss_bytes", "rss_anon_bytes", "rss_file_bytes",
        "storage_write_bytes", "bytes_on_disk", "digest", "process_wall_seconds", "timed_peak_rss_bytes",
        "calibration_seconds", "latency_by_operation_us", "sync_calibration_seconds", "phase_seconds",
        "phase_cpu_seconds", "phase_waits", "settle_seconds", "maintained_count",
        "time_boxed", "steps", "baseline_rss_bytes", "open_peak_rss_bytes", "rss_growth_bytes", "work_note",
        "harness_seconds", "storage_read_bytes", "phase_minor_faults", "phase_major_faults",
    ]

    package static func render(_ results: RunResults) -> String {
        var lines = [columns.joined(separator: ",")]
        for cell in results.cells {
            let metrics = cell.metrics
            let latency = metrics?.phase.latency
            let fields: [String?] = [
                cell.store, cell.workload, "\(cell.scale.records)", "\(cell.repetition)", cell.status.rawValue,
                cell.reason, metrics.map { seconds($0.phase.timedSeconds) }, metrics.map { "\($0.phase.operations)" },
                metrics.map { decimal($0.phase.operationsPerSecond) }, latency.map { decimal($0.p50) },
                latency.map { decimal($0.p95) }, latency.map { decimal($0.p99) }, latency.map { decimal($0.p999) },
                latency.map { decimal($0.max) }, cell.process.map { seconds($0.userCPUSeconds) },
                cell.process.map { seconds($0.systemCPUSeconds) }, cell.process.map { "\($0.peakRSSBytes)" },
                metrics?.resources.rssAnonBytes.map { "\($0)" }, metrics?.resources.rssFileBytes.map { "\($0)" },
                metrics?.resources.storageWriteBytes.map { "\($0)" }, metrics.map { "\($0.resources.bytesOnDisk)" },
                metrics.map { $0.digest.description }, cell.process.map { seconds($0.wallSeconds) },
                metrics?.resources.timedPeakRSSBytes.map { "\($0)" }, metrics?.phase.calibrationSeconds.map(seconds),
                metrics?.phase.latencyByOperation.map(operationLatencies),
                metrics?.phase.syncCalibrationSeconds.map(seconds),
                metrics?.phase.phaseSeconds.map(seconds), metrics?.phase.phaseCPUSeconds.map(seconds),
                metrics?.phase.phaseWaits.map { "\($0)" }, metrics?.phase.settleSeconds.map(seconds),
                metrics?.verification.maintainedCount.map { $0 ? "true" : "false" },
                metrics?.verification.timeBoxed.map { $0 ? "true" : "false" },
                metrics?.verification.steps.map { "\($0)" },
                metrics?.resources.baselineRSSBytes.map { "\($0)" },
                metrics?.resources.openPeakRSSBytes.map { "\($0)" },
                metrics?.resources.rssGrowthBytes.map { "\($0)" }, metrics?.verification.workNote,
                metrics?.phase.harnessSeconds.map(seconds),
                metrics?.resources.storageReadBytes.map { "\($0)" },
                metrics?.resources.phaseMinorFaults.map { "\($0)" },
                metrics?.resources.phaseMajorFaults.map { "\($0)" },
            ]
            lines.append(fields.map { quote($0 ?? "") }.joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// RFC 4180: a field with a comma, quote, or line break is quoted, and its quotes doubled.
    package static func quote(_ field: String) -> String {
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `READ 12.300/45.600/78.900/99.000; UPDATE …`: each kind's p50/p95/p99/p99.9 in µs, kinds sorted by name.
    private static func operationLatencies(_ latencies: [String: LatencySummary]) -> String {
        latencies.sorted { $0.key < $1.key }.map { kind, latency in
            "\(kind) " + [latency.p50, latency.p95, latency.p99, latency.p999].map(decimal).joined(separator: "/")
        }.joined(separator: "; ")
    }

    // Plain decimals, never exponents, so that spreadsheets and `sort -n` read them alike.
    private static func seconds(_ value: Double) -> String { String(format: "%.6f", value) }
    private static func decimal(_ value: Double) -> String { String(format: "%.3f", value) }
}
