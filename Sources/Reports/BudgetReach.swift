import Foundation
import PersistenceBench

/// How far one store stays within one of an app's budgets (`AppBudget`): the figure at each scale it finished, the
/// largest scale at which it and every smaller one stayed within, where that ended, and beyond the largest scale
/// measured the figure's power law. The budget table's cell and the budget chart's line both come from it.
struct BudgetReach {
    /// The median figure at one scale, and its repetitions' spread.
    struct Point {
        var scale: Scale
        var median: Double
        var low: Double
        var high: Double
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
    var law: PowerLaw?
    let limit: Double

    /// The budgets the run's workloads declare (`Workload.appBudgets`), in the run's order of workloads.
    /// A budget no finished cell has a figure for is left out (an `open` of results recorded before its first page
    /// was timed has figures for the first query's budgets only).
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
    /// Beyond this the extrapolation names no scale: no run here measured near it.
    static let extrapolationCeiling = 1e9

    /// Nil where `cells` (one store, one workload) hold no cell at any of `scales`.
    init?(_ budget: AppBudget, _ cells: [CellResult], scales: [Scale]) {
        limit = budget.limit
        for scale in scales {
            let atScale = cells.filter { $0.scale == scale && $0.status != .notApplicable }
            guard !atScale.isEmpty else { continue }
            let summary = CellSummary(cells: atScale)
            let figures = summary.finished.compactMap(budget.figure)
            guard let figure = median(figures), let low = figures.min(), let high = figures.max() else {
                if end == nil { end = .unfinished(scale, error: summary.failure?.status == .error) }
                continue
            }
            points.append(Point(scale: scale, median: figure, low: low, high: high))
            guard end == nil else { continue }
            if figure <= limit { within = scale } else { end = .over(scale, figure: figure) }
        }
        guard !points.isEmpty || end != nil else { return nil }
        if end == nil, let law = PowerLaw(points.map { (Double($0.scale.records), $0.median) }),
            law.exponent > Self.flatExponent
        {
            self.law = law
        }
    }

    /// Where the fit reaches the limit, in records; nil without a fit.
    var crossing: Double? { law.map { pow(limit / $0.coefficient, 1 / $0.exponent) } }

    /// The table's cell: "100k (over at 1M: 231 ms)", "≥ 1M measured; ≈ 14M extrapolated", "none (DNF at 10k)".
    var description: String {
        let reached = within.map { "\($0)" } ?? "none"
        switch end {
        case .over(let scale, let figure)?: return "\(reached) (over at \(scale): \(Quantity.formatTime(figure)))"
        case .unfinished(let scale, let error)?: return "\(reached) (\(error ? "error" : "DNF") at \(scale))"
        case nil: break
        }
        guard let within else { return "–" }
        guard let crossing else { return points.count > 1 ? "≥ \(within) measured (flat)" : "≥ \(within) measured" }
        guard crossing < Self.extrapolationCeiling else {
            return "≥ \(within) measured; beyond \(Scale(records: Int(Self.extrapolationCeiling))) extrapolated"
        }
        guard crossing > Double(within.records) else { return "≥ \(within) measured" }
        return "≥ \(within) measured; ≈ \(Scale(records: Self.roundedScale(crossing))) extrapolated"
    }

    /// `records` to two significant digits.
    private static func roundedScale(_ records: Double) -> Int {
        let unit = pow(10, floor(log10(records)) - 1)
        return Int((records / unit).rounded(.down) * unit)
    }
}
