import Histogram

/// A cell's timed phase in one-second windows: the operations done and the slowest operations of each (YCSB's
/// time series, pgbench's `--progress`), so that a stall (a checkpoint, a remap, an index that outgrew the
/// cache) shows when it happened, not only in a percentile.
///
/// Operations are the records the workload reports done (`ProgressReporter`); latencies are those of the
/// operations it times one by one (`Stopwatch.measureOperation`). Windows count from the start of the timed phase.
package final class Timeline {
    package static let windowNanoseconds: UInt64 = 1_000_000_000

    /// When the timed phase started (`monotonicNanoseconds`).
    package var start: UInt64 {
        didSet { closeWindow() }
    }
    // Finished windows, then the current one, kept apart so that the common case (another operation in the same
    // second) is one comparison and an add: this runs around every timed operation, inside the timed region.
    // Single-threaded: a cell's workload runs on one thread.
    @exclusivity(unchecked) private var finished: [TimelineWindow] = []
    @exclusivity(unchecked) private var currentEnd: UInt64 = 0
    @exclusivity(unchecked) private var currentOperations = 0
    @exclusivity(unchecked) private var currentLatencies: Histogram<UInt64>?

    package init(start: UInt64 = monotonicNanoseconds()) {
        self.start = start
        closeWindow()
    }

    /// Forgets the windows and starts the first at `start`.
    private func closeWindow() {
        finished = []
        currentEnd = start &+ Self.windowNanoseconds
        currentOperations = 0
        currentLatencies = nil
    }

    /// Moves on to the window that holds `now`, listing the ones it passes.
    @inline(__always)
    private func advance(to now: UInt64) {
        guard now >= currentEnd else { return }
        while now >= currentEnd {
            finished.append(currentWindow)
            currentOperations = 0
            currentLatencies = nil
            currentEnd &+= Self.windowNanoseconds
        }
    }

    private var currentWindow: TimelineWindow {
        TimelineWindow(
            second: finished.count, operations: currentOperations,
            p99: currentLatencies.map { Double($0.valueAtPercentile(99)) / 1_000 })
    }

    /// Adds `count` operations done at `now`.
    @inline(__always)
    package func count(_ count: Int, at now: UInt64) {
        advance(to: now)
        currentOperations += count
    }

    /// Adds one operation's latency, the operation having ended at `now`.
    @inline(__always)
    package func record(latency: UInt64, at now: UInt64) {
        advance(to: now)
        if currentLatencies == nil {
            // Two significant digits up to an hour: about 36 KB, one window at a time.
            currentLatencies = Histogram(
                highestTrackableValue: Stopwatch.longestLatencyNanoseconds, numberOfSignificantValueDigits: .two)
        }
        _ = currentLatencies?.record(max(latency, 1))
    }

    /// The windows so far, in order, the current one last; a window with nothing done is listed with 0 operations.
    package var windows: [TimelineWindow] { finished + [currentWindow] }
}

/// One second of a cell's timed phase.
package struct TimelineWindow: Codable, Equatable, Sendable {
    /// Seconds from the start of the timed phase to the start of the window.
    package var second: Int
    /// Operations (records) done in the window.
    package var operations: Int
    /// The window's p99 latency in µs, for workloads that time operations one by one.
    package var p99: Double?

    package init(second: Int, operations: Int, p99: Double?) {
        self.second = second
        self.operations = operations
        self.p99 = p99
    }
}
