import Foundation
import PersistenceBench

/// The budget table as one chart: a panel per budget, each store's figure against N (the median and the
/// repetitions' spread) under the budget's limit drawn as a dashed line, and where a store stayed within at every
/// scale measured, its fitted power law continued (dashed) into the decade past the largest scale measured, where
/// the table's "extrapolated" scales come from.
enum BudgetChart {
    static let fileName = "budgets.svg"
    private static let columns = 2
    private static let panelWidth = 420.0
    private static let panelHeight = 290.0
    private static let top = 50.0
    private static let legendWidth = 230.0

    /// Whether the run has the chart: some store has a figure for some budget the run's workloads declare.
    ///
    /// The report links the chart on this, without drawing it.
    static func isDrawn(_ results: RunResults) -> Bool { panels(results) != nil }

    /// Nil when no store has a figure for any budget the run's workloads declare.
    static func render(_ results: RunResults) -> String? {
        guard let panels = panels(results) else { return nil }
        let stores = results.stores
        let rows = (panels.count + columns - 1) / columns
        let width = Double(columns) * panelWidth + legendWidth
        var svg = LogLogChart.header(
            width: width, height: top + Double(rows) * panelHeight,
            title: "Within an app's budgets: each budget's figure against scale, and its limit")
        for (index, panel) in panels.enumerated() {
            let left = Double(index % columns) * panelWidth
            let upper = top + Double(index / columns) * panelHeight
            svg.append(
                #"<text x="\#(left + panelWidth / 2)" y="\#(upper + 16)" text-anchor="middle" font-weight="bold">\#(LogLogChart.escape(panel.title))</text>"#
            )
            let frame = LogLogChart.Frame(
                left: left + 80, right: left + panelWidth - 20, top: upper + 30, bottom: upper + panelHeight - 60)
            svg +=
                panel.plot(in: frame) ?? [
                    #"<text x="\#((frame.left + frame.right) / 2)" y="\#((frame.top + frame.bottom) / 2)" text-anchor="middle">no finished cells</text>"#
                ]
        }
        let legendX = width - legendWidth + 10
        for (index, store) in stores.enumerated() {
            svg += LogLogChart.legendEntry(store, index: index, x: legendX, y: top + 40 + Double(index) * 22)
        }
        let fitColour = "#555555"
        let keyY = top + 40 + Double(stores.count) * 22 + 12
        svg += [
            #"<line x1="\#(legendX)" y1="\#(keyY)" x2="\#(legendX + 28)" y2="\#(keyY)" stroke="\#(fitColour)" stroke-width="2" stroke-dasharray="6 4"/>"#,
            #"<text x="\#(legendX + 36)" y="\#(keyY + 4)">the fit, extrapolated</text>"#,
            #"<line x1="\#(legendX)" y1="\#(keyY + 22)" x2="\#(legendX + 28)" y2="\#(keyY + 22)" stroke="\#(LogLogChart.thresholdColour)" stroke-width="1.5" stroke-dasharray="8 4"/>"#,
            #"<text x="\#(legendX + 36)" y="\#(keyY + 26)">the budget's limit</text>"#,
            "</svg>",
        ]
        return svg.joined(separator: "\n")
    }

    /// A panel per budget the run's workloads declare; nil when no store has a figure in any of them.
    private static func panels(_ results: RunResults) -> [LogLogChart]? {
        let scales = orderedUnique(results.cells.map(\.scale)).sorted()
        guard let smallest = scales.first, let largest = scales.last else { return nil }
        let edge = Double(largest.records) * 10
        let panels = BudgetReach.budgets(of: results).map { workload, budget in
            LogLogChart(
                title: budget.name, xLabel: "records in the data set (log scale)",
                yLabel: "median over repetitions (log scale)",
                series: results.stores.map { store in
                    series(
                        store,
                        BudgetReach(
                            budget, results.cells.cells(of: StoreWorkload(store: store, workload: workload)),
                            scales: scales),
                        edge: edge)
                },
                yTime: true, thresholds: [(budget.limit, "limit " + Quantity.formatTime(budget.limit))],
                xSpan: (Double(smallest.records), edge))
        }
        return panels.contains(where: { $0.series.contains { !$0.points.isEmpty } }) ? panels : nil
    }

    /// One store's line in a panel: its medians and spreads, and its fit from the largest scale measured to where
    /// the fit reaches the limit or to `edge`, whichever comes first.
    private static func series(_ store: String, _ reach: BudgetReach?, edge: Double) -> LogLogChart.Series {
        let points = reach?.points ?? []
        var projection: [(x: Double, y: Double)] = []
        if let reach, let law = reach.law, let last = points.last {
            let (from, to) = (Double(last.scale.records), min(edge, reach.crossing ?? edge))
            if to > from { projection = [(from, law(from)), (to, law(to))] }
        }
        return LogLogChart.Series(
            name: store, points: points.map { (Double($0.scale.records), $0.median) },
            ranges: points.map { (Double($0.scale.records), $0.low, $0.high) }, projection: projection)
    }
}
