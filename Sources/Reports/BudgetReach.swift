import Foundation
import PersistenceBench

/// How far one store stays within one of an app's budgets (`AppBudget`): the figure at each scale it finished, the
/// largest scale at which it and every smaller one stayed within, where that ended, and beyond the largest scale
/// measured the figure's power law.
///
/// The budget table's cell and the budget chart's line both come from it.
struct BudgetReach {
    /// The median figure at one scale, and its repetitions' spread.
    struct Point {
        var scale: Scale
        var median: Double
        var low: Double
        var high: Double
        /// The fewest samples a repetition's figure rests on, and the median of those over the limit; nil for a
        /// figure that is one measurement.
        var samples: AppBudget.Samples?

        /// "p99 of 1,000: 0.41 ms, 2 over", "max of 10: 31 ms, 10 over", "0.21 s".
        var label: String {
            let time = Quantity.formatTime(median)
            guard let samples else { return time }
            return "\(samples.statistic) of \(formatWhole(samples.count)): \(time)"
                + (samples.over.map { ", \(formatWhole($0)) over" } ?? "")
        }
    }

    /// Where staying within ended: over the limit at a scale, or no repetition finished there.
    enum End {
        case over(Scale, figure: Double)
        case unfinished(Scale, error: Bool)
    }

    /// Every scale with a finished figure, smallest first (past the end too, as far as the store ran).
    var points: [Point] = []
    /// The largest scale within, at it and every smaller one measured.
    var within: Scale?
    var end: End?
    /// Fitted to the points within, where the store stayed within at every scale measured and the figure grows
    /// with N (exponent over `flatExponent`): where the fit crosses the limit is extrapolated.
    ///
    /// Only from `fewestScalesForFit` scales or more, all measured on one machine and all from as many samples (or all
    /// from at least `TimeBox.budgetSamples`), and only where the exponent's standard error is at most half of it.
    var law: PowerLaw?
    /// The exponent's standard error (`PowerLaw.bootstrapSpread`), where it could be estimated.
    var exponentSpread: Double?
    /// Why no law was fitted to a store that stayed within at every scale, where one could have been.
    var noFit: String?
    let limit: Double

    /// The budgets the run's workloads declare (`Workload.appBudgets`), in the run's order of workloads.
    ///
    /// A budget no finished cell has a figure for is left out (an `open` of results recorded before its first page was
    /// timed has figures for the first query's budgets only).
    static func budgets(of results: RunResults) -> [(workload: String, budget: AppBudget)] {
        orderedUnique(results.cells.map(\.workload)).flatMap { workload in
            let finished = results.cells.filter { $0.workload == workload }.compactMap(\.metrics)
            return (WorkloadCatalog.workload(named: workload)?.appBudgets ?? []).filter { budget in
                finished.isEmpty || finished.contains { budget.figure($0) != nil }
            }.map { (workload, $0) }
        }
    }

    /// A figure that grows slower than this with N is not extrapolated to a crossing.
    static let flatExponent = 0.02
    /// Beyond this many times the largest scale measured, the extrapolation names no scale.
    static let extrapolationReach = 10.0
    /// The fewest scales a law is fitted to.
    static let fewestScalesForFit = 3

    /// Nil where `cells` (one store, one workload) hold no cell at any of `scales`.
    init?(_ budget: AppBudget, _ cells: [CellResult], scales: [Scale]) {
        limit = budget.limit
        for scale in scales {
            let atScale = cells.filter { $0.scale == scale && $0.status != .notApplicable }
            // A store that kept `two-processes`' extension out did other work: not judged, in the table or the chart.
            if CellSummary(cells: atScale).refusedSecondProcess { continue }
            guard !atScale.isEmpty else { continue }
            let summary = CellSummary(cells: atScale)
            let figures = summary.finished.compactMap(budget.figure)
            // Finished without a figure: the budget does not apply to the store (a second process's save, where the
            // store refuses a second process), which is no failure to reach it.
            if figures.isEmpty && !summary.finished.isEmpty { continue }
            guard let figure = median(figures), let low = figures.min(), let high = figures.max() else {
                if end == nil { end = .unfinished(scale, error: summary.failure?.status == .error) }
                continue
            }
            let counted = summary.finished.compactMap(budget.samples)
            let samples = counted.min { $0.count < $1.count }.map { fewest in
                var samples = fewest
                samples.over =
                    counted.count == figures.count
                    ? median(counted.compactMap(\.over).map(Double.init)).map { Int($0.rounded()) } : nil
                return samples
            }
            points.append(Point(scale: scale, median: figure, low: low, high: high, samples: samples))
            guard end == nil else { continue }
            if figure <= limit { within = scale } else { end = .over(scale, figure: figure) }
        }
        guard !points.isEmpty || end != nil else { return nil }
        guard end == nil else { return }
        let counts = Set(points.map { $0.samples?.count })
        if points.count < Self.fewestScalesForFit {
            noFit =
                "\(points.count) scale\(points.count == 1 ? "" : "s") measured, a fit needs \(Self.fewestScalesForFit)"
        } else if Set(cells.filter { $0.status == .ok }.compactMap(\.bootID)).count > 1 {
            noFit = "the scales ran on more than one machine"
        } else if counts.count > 1, !counts.allSatisfy({ ($0 ?? 0) >= TimeBox.budgetSamples }) {
            noFit = "the scales' figures rest on different counts of samples"
        } else if let law = PowerLaw(points.map { (Double($0.scale.records), $0.median) }),
            law.exponent > Self.flatExponent
        {
            // An exponent its standard error could halve says nothing about where the figure crosses its limit.
            let spread = PowerLaw.bootstrapSpread(points.map { (Double($0.scale.records), $0.median) })
            if let spread, spread > law.exponent / 2 {
                noFit = String(
                    format: "the exponent, %.2f ± %.2f, is too uncertain to extrapolate", law.exponent, spread)
            } else {
                self.law = law
                exponentSpread = spread
            }
        }
    }

    /// Where the fit reaches the limit, in records; nil without a fit.
    var crossing: Double? { law.map { pow(limit / $0.coefficient, 1 / $0.exponent) } }

    /// The table's cell, with the figure it rests on: "100k (over at 1M: p99 of 1,000: 231 ms, 40 over)",
    /// "≥ 1M measured (p99 of 1,000: 0.4 ms, 1 over); ≈ 14M extrapolated (exponent 0.52 ± 0.04)", "none (DNF at
    /// 10k)".
    var description: String {
        let reached = within.map { "\($0)" } ?? "none"
        switch end {
        case .over(let scale, let figure)?:
            let label = points.first { $0.scale == scale }?.label ?? Quantity.formatTime(figure)
            return "\(reached) (over at \(scale): \(label))"
        case .unfinished(let scale, let error)?: return "\(reached) (\(error ? "error" : "DNF") at \(scale))"
        case nil: break
        }
        guard let within, let last = points.last else { return "–" }
        let measured = "≥ \(within) measured (\(last.label))"
        guard let law, let crossing else {
            if let noFit { return measured + "; no fit: \(noFit)" }
            return points.count > 1 ? measured + "; flat" : measured
        }
        let exponent =
            "exponent \(String(format: "%.2f", law.exponent))"
            + (exponentSpread.map { " ± \(String(format: "%.2f", $0))" } ?? "")
        let reach = Double(within.records) * Self.extrapolationReach
        guard crossing <= reach else {
            return measured + "; within to \(Scale(records: Int(reach))) by the fit (\(exponent))"
        }
        guard crossing > Double(within.records) else { return measured }
        return measured + "; ≈ \(Scale(records: Self.roundedScale(crossing))) extrapolated (\(exponent))"
    }

    /// `records` to two significant digits.
    private static func roundedScale(_ records: Double) -> Int {
        let unit = pow(10, floor(log10(records)) - 1)
        return Int((records / unit).rounded(.down) * unit)
    }
}
