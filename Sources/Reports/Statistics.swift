import Foundation
import PersistenceBench

/// The repetitions of one (store, workload, scale), summarised.
struct CellSummary {
    let cells: [CellResult]

    var finished: [CellMetrics] { cells.compactMap { $0.status == .ok ? $0.metrics : nil } }
    var throughputs: [Double] { finished.map(\.phase.operationsPerSecond) }
    var medianThroughput: Double? { median(throughputs) }
    /// The median of the repetitions' `peakRSSBytes`: the timed phase's own peak.
    var medianPeakRSS: Double? {
        median(cells.filter { $0.status == .ok }.compactMap { $0.peakRSSBytes.map(Double.init) })
    }
    /// The median of the repetitions' `rssGrowthBytes`: what the timed phase's peak added to the process as it was
    /// before the store opened.
    var medianRSSGrowth: Double? { median(finished.compactMap { $0.resources.rssGrowthBytes.map(Double.init) }) }
    /// What the store does differently in this workload (`CellMetrics.workNote`), if anything.
    var workNote: String? { finished.lazy.compactMap(\.verification.workNote).first }
    var medianBytesOnDisk: Double? { median(finished.map { Double($0.resources.bytesOnDisk) }) }
    /// Each finished repetition's timed seconds per operation.
    var timesPerOperation: [Double] {
        finished.filter { $0.phase.operations > 0 }.map { $0.phase.timedSeconds / Double($0.phase.operations) }
    }
    /// The median over finished repetitions of the timed seconds per operation.
    var medianTimePerOperation: Double? { median(timesPerOperation) }
    /// Whether the store answered from a count it maintains (`CellMetrics.maintainedCount`).
    var answeredFromMaintainedCount: Bool { finished.contains { $0.verification.maintainedCount == true } }
    /// Whether `two-processes`' second process did not get in: the store's lock refused it, as the store is built
    /// to, or its open failed.
    ///
    /// Its app then committed alone, which is not the work of the stores that let it in.
    var refusedSecondProcess: Bool { secondProcessRefusal != nil }
    /// How the second process was kept out, in a few words; nil where it got in (or the workload has none).
    var secondProcessRefusal: String? {
        let others = finished.compactMap { $0.figures?.twoProcesses?.secondProcess }
        guard others.contains(where: { $0.refusal != nil }) else { return nil }
        return others.allSatisfy { $0.refusedByLock == true }
            ? "refused the second process (by design)" : "the second process could not open the store"
    }
    /// Why this store's figure is kept out of the ranking (never ★, never the fastest; a refused second process also
    /// no ratio to the best, where a maintained count keeps its ratio), if it did other work than the stores it is
    /// ranked against.
    var unranked: String? {
        if answeredFromMaintainedCount { return "maintained count (O(1))" }
        return secondProcessRefusal.map { $0 + ": not ranked" }
    }
    /// The operations of the time-boxed repetitions (`CellMetrics.timeBoxed`), fewest first; empty if none was.
    var timeBoxedOperations: [Int] {
        finished.filter { $0.verification.timeBoxed == true }.map(\.phase.operations).sorted()
    }
    /// Whether its loop stopped short of the budget floor on its own time (`CellVerification.stoppedShort`, its first
    /// repetition's; the later ones did its count).
    var stoppedShort: Bool { finished.contains { $0.verification.stoppedShort == true } }
    /// The first reason a repetition did not finish, if none finished.
    var failure: CellResult? { finished.isEmpty ? cells.first { $0.status != .ok } : nil }
    /// Repetitions that did not finish, when others did.
    var partialFailures: Int { finished.isEmpty ? 0 : cells.count - finished.count }

    /// The median over finished repetitions of a count of the timed phase (`\.phaseMinorFaults`) per operation.
    func medianPerOperation(_ figure: KeyPath<CellMetrics, Int64?>) -> Double? {
        median(
            finished.filter { $0.phase.operations > 0 }.compactMap { metrics in
                metrics[keyPath: figure].map { Double($0) / Double(metrics.phase.operations) }
            })
    }

    /// The median of a resident-memory figure (`\.rssAnonBytes`, `\.rssFileBytes`) over finished repetitions.
    func medianResident(_ figure: KeyPath<CellMetrics, Int64?>) -> Double? {
        median(finished.compactMap { $0[keyPath: figure].map(Double.init) })
    }

    func medianLatency(_ percentile: KeyPath<LatencySummary, Double>) -> Double? {
        median(finished.compactMap { $0.phase.latency?[keyPath: percentile] })
    }

    /// The median of one operation kind's percentile (YCSB's `READ`, …) over finished repetitions.
    func medianLatency(of kind: OperationKind, _ percentile: KeyPath<LatencySummary, Double>) -> Double? {
        median(finished.compactMap { $0.phase.latencyByOperation?[kind.rawValue]?[keyPath: percentile] })
    }
}

extension CellSummary {
    /// The repetitions of `store` at `scale` among `cells` (one workload's).
    init(_ cells: [CellResult], store: String, scale: Scale) {
        self.init(cells: cells.filter { $0.store == store && $0.scale == scale })
    }

    /// Each store's summary at each scale, store by store in the report's order, where a repetition finished: the
    /// rows of a table of stores by scales.
    static func finished(_ cells: [CellResult], stores: [String], scales: [Scale]) -> [(
        store: String, scale: Scale, summary: CellSummary
    )] {
        stores.flatMap { store in
            scales.compactMap { scale in
                let summary = CellSummary(cells, store: store, scale: scale)
                return summary.finished.isEmpty ? nil : (store, scale, summary)
            }
        }
    }
}

/// Numbers as people read them: 1.23M, 456k, 78.9.
func formatCount(_ value: Double) -> String {
    for (suffix, unit) in [("G", 1e9), ("M", 1e6), ("k", 1e3)] where value >= unit {
        return formatSignificant(value / unit) + suffix
    }
    return formatSignificant(value)
}

/// A whole count with its thousands grouped: 1,353.
func formatWhole(_ value: Int) -> String {
    let digits = String(value.magnitude)
    var grouped = ""
    for (offset, digit) in digits.enumerated() {
        if offset > 0, (digits.count - offset) % 3 == 0 { grouped += "," }
        grouped.append(digit)
    }
    return (value < 0 ? "-" : "") + grouped
}

/// Three significant digits.
func formatSignificant(_ value: Double) -> String {
    if value >= 100 { return String(format: "%.0f", value) }
    if value >= 10 { return String(format: "%.1f", value) }
    return String(format: "%.2f", value)
}
