import Foundation
import PersistenceBench

extension Charts {
    /// For `get-readers`, `page-readers` and `search-readers`, per scale: all readers' reads per second beside the
    /// writer against K, and their read p99, a line per store (medians over repetitions).
    static func readersCharts(_ results: RunResults) -> [(name: String, svg: String)] {
        let cells = results.cells.filter { $0.status == .ok && $0.metrics?.figures?.readers != nil }
        var charts: [(String, String)] = []
        for workload in orderedUnique(cells.map(\.workload)) {
            for scale in orderedUnique(cells.map(\.scale)).sorted() {
                let cells = cells.cells(of: GroupID(workload: workload, scale: scale))
                guard let cores = cells.first?.metrics?.figures?.readers?.cores else { continue }
                var throughput: [LogLogChart.Series] = []
                var latency: [LogLogChart.Series] = []
                for store in results.stores {
                    let measured = cells.filter { $0.store == store }.compactMap(\.metrics?.figures?.readers)
                    guard let first = measured.first else { continue }
                    func points(_ figure: (ReadFigures) -> Double?) -> [(x: Double, y: Double)] {
                        first.levels.map(\.readers).compactMap { readers in
                            let levels = measured.compactMap { $0.levels.first { $0.readers == readers } }
                            return median(levels.compactMap { figure($0.besideWriter) }).map { (Double(readers), $0) }
                        }
                    }
                    throughput.append(LogLogChart.Series(name: store, points: points(\.readsPerSecond)))
                    latency.append(
                        LogLogChart.Series(name: store, points: points { $0.latency.map { $0.p99 / 1e6 } }))
                }
                let xLabel = "reader threads K (the machine has \(cores) cores)"
                charts.append(
                    (
                        readersFileName(workload, scale),
                        LogLogChart(
                            title: "\(workload) at \(scale): reads per second beside the writer", xLabel: xLabel,
                            yLabel: "all readers' reads per second, median (log scale)", series: throughput,
                            linearX: true
                        ).render()
                    ))
                charts.append(
                    (
                        readersLatencyFileName(workload, scale),
                        LogLogChart(
                            title: "\(workload) at \(scale): read p99 beside the writer", xLabel: xLabel,
                            yLabel: "read p99, median (log scale)", series: latency, linearX: true, yTime: true,
                            thresholds: [(AppBudget.frame, "a frame (16.7 ms)")]
                        ).render()
                    ))
            }
        }
        return charts
    }

    package static func readersFileName(_ workload: String, _ scale: Scale) -> String { "\(workload)-\(scale).svg" }
    package static func readersLatencyFileName(_ workload: String, _ scale: Scale) -> String {
        "\(workload)-p99-\(scale).svg"
    }
}

extension Charts {
    /// For `pinned-reader`, per scale: the store's files in all over the import beside the pinned snapshot, a line per
    /// store (its first finished repetition).
    static func pinnedReaderCharts(_ results: RunResults) -> [(name: String, svg: String)] {
        let cells = results.cells.filter { $0.status == .ok && $0.metrics?.figures?.pinnedReader != nil }
        return orderedUnique(cells.map(\.scale)).sorted().map { scale in
            let series = results.stores.compactMap { store -> LogLogChart.Series? in
                guard
                    let metrics = cells.first(where: { $0.store == store && $0.scale == scale })?.metrics?.figures?
                        .pinnedReader
                else { return nil }
                return LogLogChart.Series(name: store, points: metrics.totals.map { ($0.seconds, Double($0.bytes)) })
            }
            let chart = LogLogChart(
                title: "pinned-reader at \(scale): the store's files while a snapshot is held",
                xLabel: "seconds into the import", yLabel: "the store's files, bytes (log scale)", series: series,
                yUnit: "B", linearX: true)
            return (pinnedReaderFileName(scale), chart.render())
        }
    }

    package static func pinnedReaderFileName(_ scale: Scale) -> String { "pinned-reader-\(scale).svg" }
}
