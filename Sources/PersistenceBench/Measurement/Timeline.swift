import Histogram

/// A cell's timed phase in one-second windows: the operations done and the slowest operations of each (YCSB's
/// time series, pgbench's `--progress`), so that a stall (a checkpoint, a remap, an index that outgrew the
/// cache) shows when it happened, not only in a percentile.
///
/// Operations are the records the workload reports done (`ProgressReporter`); latencies are those of the
/// operations it times one by one (`Stopwatch.measureOperation`). Windows count from the start of the timed phase.
public final class Timeline {
    public static let windowNanoseconds: UInt64 = 1_000_000_000

    /// When the timed phase started (`monotonicNanoseconds`).
    public var start: UInt64
    private var operations: [Int] = []
    private var latencies: [Histogram<UInt64>?] = []

    public init(start: UInt64 = monotonicNanoseconds()) { self.start = start }

    private func window(at now: UInt64) -> Int {
        let index = Int((now &- start) / Self.windowNanoseconds)
        while operations.count <= index {
            operations.append(0)
            latencies.append(nil)
        }
        return index
    }

    /// Adds `count` operations done at `now`.
    func count(_ count: Int, at now: UInt64) {
        operations[window(at: now)] += count
    }

    /// Adds one operation's latency, the operation having ended at `now`.
    func record(latency: UInt64, at now: UInt64) {
        let index = window(at: now)
        if latencies[index] == nil {
            // Two significant digits up to an hour: about 36 KB per window that times single operations.
            latencies[index] = Histogram(highestTrackableValue: 3_600_000_000_000, numberOfSignificantValueDigits: .two)
        }
        _ = latencies[index]?.record(max(latency, 1))
    }

    /// The windows so far, in order; a window with nothing done is still listed, with 0 operations.
    public var windows: [TimelineWindow] {
        operations.indices.map { index in
            TimelineWindow(
                second: index, operations: operations[index],
                p99: latencies[index].map { Double($0.valueAtPercentile(99)) / 1_000 })
        }
    }
}

/// One second of a cell's timed phase.
public struct TimelineWindow: Codable, Equatable, Sendable {
    /// Seconds from the start of the timed phase to the start of the window.
    public var second: Int
    /// Operations (records) done in the window.
    public var operations: Int
    /// The window's p99 latency in µs, for workloads that time operations one by one.
    public var p99: Double?

    public init(second: Int, operations: Int, p99: Double?) {
        self.second = second
        self.operations = operations
        self.p99 = p99
    }
}
