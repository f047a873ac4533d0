import Foundation
import Histogram

/// Monotonic nanoseconds (CLOCK_MONOTONIC): cheap enough to read around every single operation.
@inline(__always)
package func monotonicNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

/// Nanoseconds as seconds.
@inline(__always)
package func seconds(nanoseconds: UInt64) -> Double { Double(nanoseconds) / 1e9 }

/// The seconds since `start`, a reading of `monotonicNanoseconds()`.
@inline(__always)
package func secondsSince(_ start: UInt64) -> Double { seconds(nanoseconds: monotonicNanoseconds() - start) }

/// Sums the timed parts of a workload: only the store's work runs inside `measure`.
///
/// Generating a batch of data, loading a store, and reading back a digest happen outside, so a workload that
/// alternates generation and store calls reports the store's time alone.
public final class Stopwatch {
    package private(set) var elapsedNanoseconds: UInt64 = 0
    /// The duration of the last operation timed alone: by `measureOperation`, or the first of a `measureBlock`.
    private(set) var lastOperationNanoseconds: UInt64 = 0
    /// Made with the stopwatch, before the timed phase: its 200 KB and the runtime's first look at its type
    /// (about a million instructions) are setup, not the first operation's work.
    private var latencies = Stopwatch.histogram()
    private var latenciesByKind: [OperationKind: Histogram<UInt64>] = [:]
    /// Where each timed operation's latency also goes, per second of the timed phase, once the cell starts one.
    package var timeline: Timeline?

    public init() {}

    package var elapsedSeconds: Double { seconds(nanoseconds: elapsedNanoseconds) }

    /// Times `body` and adds its duration to the total.
    @inline(__always)
    package func measure<T>(_ body: () throws -> T) rethrows -> T {
        let start = monotonicNanoseconds()
        defer { elapsedNanoseconds += monotonicNanoseconds() - start }
        return try body()
    }

    /// Times one operation: adds it to the total and records its latency.
    @inline(__always)
    package func measureOperation<T>(_ body: () throws -> T) rethrows -> T {
        let start = monotonicNanoseconds()
        defer { record(since: start) }
        return try body()
    }

    /// Times one operation of a kind (YCSB's `READ`, `UPDATE`, …): as `measureOperation`, and into the kind's
    /// own histogram too.
    @inline(__always)
    package func measureOperation<T>(_ kind: OperationKind, _ body: () throws -> T) rethrows -> T {
        let start = monotonicNanoseconds()
        defer {
            let duration = record(since: start)
            _ = latenciesByKind[kind, default: Self.histogram()].record(max(duration, 1))
        }
        return try body()
    }

    /// Times a block of operations with three clock reads: `first` alone as the latency sample, `first` and `rest`
    /// together into the total.
    ///
    /// A clock read (about 30 ns) around each lookup of 100 ns would add about 30% to it; a block of 32 pays three
    /// reads.
    @inline(__always)
    func measureBlock(first: () throws -> Void, rest: () throws -> Void) rethrows {
        let start = monotonicNanoseconds()
        try first()
        let firstEnd = monotonicNanoseconds()
        try rest()
        let end = monotonicNanoseconds()
        elapsedNanoseconds += end - start
        recordSample(firstEnd - start, at: firstEnd)
    }

    /// Records one operation that started at `start` and ends now; returns its duration.
    @discardableResult
    private func record(since start: UInt64) -> UInt64 {
        let end = monotonicNanoseconds()
        let duration = end - start
        elapsedNanoseconds += duration
        recordSample(duration, at: end)
        return duration
    }

    /// Adds one operation's latency, which ended at `end`, to the histogram and the timeline.
    private func recordSample(_ duration: UInt64, at end: UInt64) {
        lastOperationNanoseconds = duration
        _ = latencies.record(max(duration, 1))
        timeline?.record(latency: duration, at: end)
    }

    /// 1 ns to 1 hour at 3 significant digits: about 200 KB, allocated once per histogram.
    ///
    /// The longest latency the histograms record: an hour, in nanoseconds.
    static let longestLatencyNanoseconds: UInt64 = 3_600_000_000_000

    static func histogram() -> Histogram<UInt64> {
        Histogram(highestTrackableValue: longestLatencyNanoseconds, numberOfSignificantValueDigits: .three)
    }

    /// Percentiles of the operations timed with `measureOperation`, or nil if there were none.
    package var latencySummary: LatencySummary? { LatencySummary(latencies) }

    /// Percentiles per kind of operation, for workloads that name their operations; nil for the others.
    package var latencySummaryByKind: [String: LatencySummary]? {
        latenciesByKind.isEmpty
            ? nil
            : Dictionary(
                uniqueKeysWithValues: latenciesByKind.compactMap { kind, histogram in
                    LatencySummary(histogram).map { (kind.rawValue, $0) }
                })
    }
}

/// Per-operation latency percentiles, in microseconds (HdrHistogram, 3 significant digits).
package struct LatencySummary: Codable, Equatable, Sendable {
    package var count: Int
    package var p50: Double
    package var p95: Double
    package var p99: Double
    package var p999: Double
    package var max: Double
    /// How many of the samples took longer than a frame at 60 Hz (`frameNanoseconds`): a UI read that misses
    /// one.
    ///
    /// Within the histogram's precision (3 significant digits). Nil in results written before it was counted.
    package var overFrame: Int?
    /// How many took longer than 100 ms (`lateNanoseconds`): a keystroke's result the user sees as late.
    package var overLate: Int?

    /// How many samples took longer than `limit` seconds, where the summary counts that limit (a frame, 100 ms).
    package func over(_ limit: Double) -> Int? {
        switch UInt64((limit * 1e9).rounded()) {
        case 16_666_667, Self.frameNanoseconds: overFrame
        case Self.lateNanoseconds: overLate
        default: nil
        }
    }

    /// One frame at 60 Hz, 16.7 ms: what a read on the main thread may take without a dropped frame.
    package static let frameNanoseconds: UInt64 = 16_700_000
    /// 100 ms: the longest a response to a keystroke or a tap may take and still feel immediate.
    package static let lateNanoseconds: UInt64 = 100_000_000

    package init(
        count: Int, p50: Double, p95: Double, p99: Double, p999: Double, max: Double, overFrame: Int? = nil,
        overLate: Int? = nil
    ) {
        self.count = count
        self.p50 = p50
        self.p95 = p95
        self.p99 = p99
        self.p999 = p999
        self.max = max
        self.overFrame = overFrame
        self.overLate = overLate
    }

    /// The percentiles of `latencies`, in nanoseconds, as µs; nil when there are none.
    init?(nanoseconds latencies: some Sequence<UInt64>) {
        var histogram = Histogram<UInt64>(
            highestTrackableValue: Stopwatch.longestLatencyNanoseconds, numberOfSignificantValueDigits: .three)
        for latency in latencies { _ = histogram.record(Swift.max(latency, 1)) }
        self.init(histogram)
    }

    /// The histogram's percentiles (recorded in ns) in µs; nil for an empty histogram.
    init?(_ histogram: Histogram<UInt64>) {
        guard histogram.totalCount > 0 else { return nil }
        func microseconds(_ percentile: Double) -> Double { Double(histogram.valueAtPercentile(percentile)) / 1000 }
        func over(_ nanoseconds: UInt64) -> Int {
            let lower = histogram.nextNonEquivalentForValue(nanoseconds)
            return lower <= histogram.max ? Int(histogram.count(within: lower...histogram.max)) : 0
        }
        self.init(
            count: Int(histogram.totalCount), p50: microseconds(50), p95: microseconds(95), p99: microseconds(99),
            p999: microseconds(99.9), max: Double(histogram.max) / 1000, overFrame: over(Self.frameNanoseconds),
            overLate: over(Self.lateNanoseconds))
    }
}
