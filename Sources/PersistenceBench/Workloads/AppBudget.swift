import Foundation

/// A limit an app lives within, which a workload declares its cells are judged against (`Workload.appBudgets`): the
/// report's budget table gives, per store, the largest scale whose median figure stays within it.
public struct AppBudget: Sendable {
    /// The table's column: "page p99 ≤ a frame".
    package var name: String
    /// The limit, seconds.
    package var limit: Double
    /// Where the limit comes from, for the report's note and docs/budgets.md.
    package var source: String
    /// A finished cell's figure held against the limit, seconds; nil when the cell has none.
    package var figure: @Sendable (CellMetrics) -> Double?
    /// How many samples a cell's figure is a percentile of, and how many went over the limit; nil for a figure that
    /// is one measurement (a launch).
    package var samples: @Sendable (CellMetrics) -> Samples?

    /// A figure's samples: its count, those over the limit where counted, and which statistic of them it is.
    package struct Samples: Sendable, Equatable {
        package var count: Int
        package var over: Int?
        /// "p99", "p99.9", or "max" where the samples are too few for the percentile asked (or it is the max).
        package var statistic: String

        package init(count: Int, over: Int?, percentile: String = "p99", fewest: Int = AppBudget.fewestForPercentile) {
            self.count = count
            self.over = over
            statistic = count >= fewest ? percentile : "max"
        }
    }

    /// The fewest samples whose p99 is a percentile rather than their maximum: of 100, the p99 is the second slowest.
    package static let fewestForPercentile = 100
    /// The same for a p99.9: of 1,000, the slowest is the p99.9.
    package static let fewestForTailPercentile = 1_000

    package init(
        name: String, limit: Double, source: String, figure: @escaping @Sendable (CellMetrics) -> Double?,
        samples: @escaping @Sendable (CellMetrics) -> Samples? = { _ in nil }
    ) {
        self.name = name
        self.limit = limit
        self.source = source
        self.figure = figure
        self.samples = samples
    }

    /// One frame of a 60 Hz display: what a UI read or a save on the main thread may take without a dropped frame.
    package static let frame = 1.0 / 60
    package static let frameSource = "one frame at 60 Hz (1/60 s): a longer wait on the main thread drops a frame"
    /// The limit for a response to feel instantaneous.
    package static let instant = 0.1
    package static let instantSource =
        "0.1 s, the limit for a reaction to feel instantaneous (Nielsen, Usability Engineering, 1993: "
        + "nngroup.com/articles/response-times-3-important-limits)"
    /// A cold launch's first frame, and the watchdog's allowance for a launch.
    package static let launch = 0.4
    package static let launchSource =
        "0.4 s to a cold launch's first frame, Apple's target (WWDC 2019, session 423, Optimizing App Launch)"
    package static let watchdog = 20.0
    package static let watchdogSource =
        "about 20 s, the allowance after which iOS's watchdog kills a launching app (0x8badf00d; Apple Technical "
        + "Q&A QA1592 and Apple's developer forums, thread 100253: 'real (wall clock) time allowance of 19.69 seconds')"

    /// The p99 of the cell's operations (of one kind, when named) within `limit`; from fewer than
    /// `fewestForPercentile` operations, their slowest.
    ///
    /// `limit` is a frame or `instant`, whose operations over it every latency summary counts.
    package static func p99(_ name: String, kind: OperationKind? = nil, within limit: Double, source: String)
        -> AppBudget
    {
        p99(name, within: limit, source: source) { metrics in
            kind.map { metrics.phase.latencyByOperation?[$0.rawValue] } ?? metrics.phase.latency
        }
    }

    /// The p99 of the latencies `latency` picks from a cell (a figure of its own table) within `limit`, as above.
    package static func p99(
        _ name: String, within limit: Double, source: String,
        of latency: @escaping @Sendable (CellMetrics) -> LatencySummary?
    ) -> AppBudget {
        percentile(name, \.p99, "p99", fewest: fewestForPercentile, within: limit, source: source, of: latency)
    }

    /// The p99.9 of the latencies `latency` picks within `limit`; from fewer than `fewestForTailPercentile`, their
    /// slowest.
    package static func p999(
        _ name: String, within limit: Double, source: String,
        of latency: @escaping @Sendable (CellMetrics) -> LatencySummary?
    ) -> AppBudget {
        percentile(name, \.p999, "p99.9", fewest: fewestForTailPercentile, within: limit, source: source, of: latency)
    }

    /// The slowest of the latencies `latency` picks within `limit`: one stall, which no percentile hides.
    package static func slowest(
        _ name: String, within limit: Double, source: String,
        of latency: @escaping @Sendable (CellMetrics) -> LatencySummary?
    ) -> AppBudget {
        percentile(name, \.max, "max", fewest: 0, within: limit, source: source, of: latency)
    }

    /// `statistic` (named `label`) of the latencies `latency` picks within `limit`; from fewer than `fewest`
    /// samples, their slowest.
    private static func percentile(
        _ name: String, _ statistic: KeyPath<LatencySummary, Double> & Sendable, _ label: String, fewest: Int,
        within limit: Double, source: String, of latency: @escaping @Sendable (CellMetrics) -> LatencySummary?
    ) -> AppBudget {
        AppBudget(name: name, limit: limit, source: source) { metrics in
            latency(metrics).map { ($0.count >= fewest ? $0[keyPath: statistic] : $0.max) / 1e6 }
        } samples: { metrics in
            latency(metrics).map { Samples(count: $0.count, over: $0.over(limit), percentile: label, fewest: fewest) }
        }
    }
}
