import Foundation
import PersistenceBench

/// The charts a run's report links: throughput against scale per workload, time per operation against scale per
/// workload fitted, throughput over time for long cells, memory per record against scale, and the budgets' panels.
package enum Charts {
    /// The directory, beside `report.md`, that holds the charts.
    package static let directoryName = "charts"

    /// File name → SVG, for every workload with a finished cell, and the memory chart.
    package static func render(_ results: RunResults) -> [(name: String, svg: String)] {
        let stores = results.stores
        var charts: [(String, String)] = []
        for workload in orderedUnique(results.cells.map(\.workload)) {
            let cells = results.cells.filter { $0.workload == workload }
            let series = stores.map { store in
                LogLogChart.Series(
                    name: store,
                    points: scales(of: cells).compactMap { scale in
                        CellSummary(cells, store: store, scale: scale).medianThroughput
                            .map { (Double(scale.records), $0) }
                    })
            }.filter { !$0.points.isEmpty }
            guard !series.isEmpty else { continue }
            let chart = LogLogChart(
                title: "\(workload): throughput against scale", xLabel: "records in the data set (log scale)",
                yLabel: "operations per second, median (log scale)", series: series)
            charts.append((throughputFileName(workload), chart.render()))
        }
        // Time per operation against scale, with the repetitions' spread, for the workloads `Growth` fits; where the
        // scales ran on more than one machine, the points of all but the first are hollow, and the key says whose.
        let fits = Growth.fits(results)
        for workload in orderedUnique(fits.map(\.workload)) {
            let workloadFits = fits.filter { $0.workload == workload }
            let machines = orderedUnique(workloadFits.flatMap { $0.points.compactMap(\.machine) })
            let series = workloadFits.map { fit in
                LogLogChart.Series(
                    name: fit.store, points: fit.points.map { (Double($0.scale.records), $0.median) },
                    ranges: fit.points.map { (Double($0.scale.records), $0.low, $0.high) },
                    hollow: Set(
                        fit.points.filter { $0.machine != nil && $0.machine != machines.first }
                            .map { Double($0.scale.records) }))
            }
            var chart = LogLogChart(
                title: "\(workload): time per operation against scale", xLabel: "records in the data set (log scale)",
                yLabel: "seconds per operation, median and spread (log scale)", series: series, yTime: true)
            if machines.count > 1 {
                chart.markerKey = ["● \(machines[0])", "○ " + machines.dropFirst().joined(separator: ", ")]
            }
            charts.append((timeFileName(workload), chart.render()))
        }
        // Throughput over time for the cells whose timed phase ran longer than `timelineSeconds`: each store's first
        // finished repetition, one chart per (workload, scale).
        for workload in orderedUnique(results.cells.map(\.workload)) {
            for scale in scales(of: results.cells) {
                let cells = results.cells.cells(of: GroupID(workload: workload, scale: scale))
                let series = timelines(of: cells, stores: stores).map { store, windows in
                    LogLogChart.Series(
                        name: store, points: windows.map { (Double($0.second) + 0.5, Double($0.operations)) })
                }
                guard !series.isEmpty else { continue }
                let chart = LogLogChart(
                    title: "\(workload) at \(scale): throughput over time", xLabel: "seconds into the timed phase",
                    yLabel: "operations per second (log scale)", series: series, linearX: true)
                charts.append((timelineFileName(workload, scale), chart.render()))
            }
        }
        let memory = stores.map { store in
            LogLogChart.Series(
                name: store,
                points: scales(of: results.cells).compactMap { scale in
                    // The most memory the store needed at this scale: its largest median growth over workloads
                    // (a log scale has no place for a store that needed none).
                    let growths = orderedUnique(results.cells.map(\.workload)).compactMap { workload in
                        CellSummary(
                            cells: results.cells.cells(of: SeriesID(store: store, workload: workload, scale: scale))
                        ).medianRSSGrowth
                    }
                    return growths.max().flatMap { $0 > 0 ? (Double(scale.records), $0 / Double(scale.records)) : nil }
                })
        }.filter { !$0.points.isEmpty }
        if !memory.isEmpty {
            let chart = LogLogChart(
                title: "Peak memory per record against scale", xLabel: "records in the data set (log scale)",
                yLabel: "peak RSS growth ÷ records, bytes (log scale)", series: memory, yUnit: "B")
            charts.append((memoryFileName, chart.render()))
        }
        charts += readersCharts(results)
        charts += pinnedReaderCharts(results)
        if let budgets = BudgetChart.render(results) { charts.append((BudgetChart.fileName, budgets)) }
        return charts
    }

    package static func throughputFileName(_ workload: String) -> String { "throughput-\(workload).svg" }
    package static func timeFileName(_ workload: String) -> String { "time-\(workload).svg" }
    package static func timelineFileName(_ workload: String, _ scale: Scale) -> String {
        "timeline-\(workload)-\(scale).svg"
    }
    /// Cells whose timed phase ran longer than this get a throughput-over-time chart.
    package static let timelineSeconds = 5.0

    /// Per store, in `stores`' order, the timeline of its first finished repetition among `cells` (one workload at
    /// one scale), where that repetition's timed phase ran longer than `timelineSeconds`.
    static func timelines(of cells: [CellResult], stores: [String]) -> [(store: String, windows: [TimelineWindow])] {
        stores.compactMap { store in
            guard let metrics = cells.first(where: { $0.store == store && $0.status == .ok })?.metrics,
                let timeline = metrics.phase.timeline, (metrics.phase.phaseSeconds ?? 0) > timelineSeconds
            else { return nil }
            return (store, timeline)
        }
    }
    package static let memoryFileName = "memory-per-record.svg"

    private static func scales(of cells: [CellResult]) -> [Scale] {
        orderedUnique(cells.map(\.scale)).sorted()
    }
}
