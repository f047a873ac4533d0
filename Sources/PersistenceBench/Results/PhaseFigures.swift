import Foundation

/// The timed phase of a cell: its seconds, operations, latencies and windows, and the machine's pace beside it.
package struct PhaseFigures: Codable, Equatable, Sendable {
    /// Wall seconds of the timed parts only (no setup, loading, data generation or digest read-back).
    package var timedSeconds: Double
    /// Operations in the timed phase: records written, lookups, rows scanned or queries.
    package var operations: Int
    /// Per-operation latency, for workloads that time each operation (get, page, count-where, insert-each).
    package var latency: LatencySummary?
    /// Latency per kind of operation, for workloads that mix kinds (YCSB: `READ`, `UPDATE`, `INSERT`, `SCAN`,
    /// `READ-MODIFY-WRITE`); `latency` then covers all of them together.
    package var latencyByOperation: [String: LatencySummary]?
    /// Wall seconds from the start to the end of the timed phase, untimed generation between its parts included.
    package var phaseSeconds: Double?
    /// CPU seconds (user and system) the process used over the same span.
    package var phaseCPUSeconds: Double?
    /// Voluntary context switches over the same span: how often the cell waited (a blocking sync, a read that
    /// missed the page cache).
    package var phaseWaits: Int64?
    /// Seconds of the timed phase a changing workload spent bringing the store's files to what a reopen finds
    /// (`Store.settle`: a WAL checkpoint), included in `timedSeconds`.
    ///
    /// Nil where the workload changed nothing.
    package var settleSeconds: Double?
    /// The timed phase in one-second windows (`Timeline`): operations done and p99 per window.
    ///
    /// Nil in results recorded before it was.
    package var timeline: [TimelineWindow]?
    /// For `count-where` and `count-range` when they asked more than one round: the first round apart
    /// (`CountRounds`).
    ///
    /// Nil elsewhere.
    package var firstRound: FirstRound?
    /// For a loop of steps: the timed seconds of the same loop against a store that does nothing (`HarnessFloor`),
    /// the harness's own part of `timedSeconds`.
    ///
    /// Nil elsewhere.
    package var harnessSeconds: Double?
    /// Seconds of one round of the fixed CPU and memory loop (`Calibration`), timed in the cell's process after
    /// its timed phase: how fast the machine was, for comparisons between runs.
    package var calibrationSeconds: Double?
    /// Seconds of one durable 4 KiB append (`Calibration.measureSync`), timed in the cell's directory after its
    /// timed phase: how long this machine's storage takes to make a write durable.
    package var syncCalibrationSeconds: Double?

    package var operationsPerSecond: Double { timedSeconds > 0 ? Double(operations) / timedSeconds : 0 }

    /// The seconds per question of the rounds after the first, where the cell asked more than one.
    package var laterRoundsSecondsPerOperation: Double? {
        guard let firstRound, operations > firstRound.operations else { return nil }
        return (timedSeconds - firstRound.seconds) / Double(operations - firstRound.operations)
    }

    /// The harness's share of the timed seconds (0–1), where measured.
    package var harnessShare: Double? {
        guard let harnessSeconds, timedSeconds > 0 else { return nil }
        return min(1, harnessSeconds / timedSeconds)
    }
}
