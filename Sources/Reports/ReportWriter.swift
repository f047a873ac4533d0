import Foundation
import PersistenceBench

/// The formats a run is written in.
package enum ReportFormat: String, CaseIterable, Sendable {
    case json, csv, md

    package var fileName: String {
        switch self {
        case .json: "results.json"
        case .csv: "results.csv"
        case .md: "report.md"
        }
    }
}

/// Writes a run's results to a directory, each file replaced atomically; with `report.md`, its SVG charts in
/// `charts/`.
package enum ReportWriter {
    package static func write(_ results: RunResults, to directory: URL, formats: [ReportFormat] = ReportFormat.allCases)
        throws
    {
        try FileSystem.makeDirectory(directory)
        for format in formats {
            let data: Data
            switch format {
            case .json: data = try results.jsonData()
            case .csv: data = Data(CSVReport.render(results).utf8)
            case .md: data = Data(MarkdownReport.render(results).utf8)
            }
            try FileSystem.writeAtomically(data, to: directory.appendingPathComponent(format.fileName))
        }
        // The charts `report.md` links.
        if formats.contains(.md) {
            let charts = directory.appendingPathComponent(Charts.directoryName)
            try FileSystem.makeDirectory(charts)
            for (name, svg) in Charts.render(results) {
                try FileSystem.writeAtomically(Data(svg.utf8), to: charts.appendingPathComponent(name))
            }
            // A counted run's cells' flame graphs, from the stacks each kept.
            if results.configuration.counted == true { try FlameGraph.writeGraphs(of: results, in: directory) }
        }
    }
}

/// Writes a running matrix's results after every cell: `results.json` at once (what `--resume` and `report` read),
/// each cell encoded once (`IncrementalResultsEncoder`), the CSV, the Markdown report and its charts at most every
/// `interval` seconds and when the run has finished. Rendering every report after every cell took a third of the
/// default run's time.
package final class RunningReportWriter {
    private let directory: URL
    private let intervalNanoseconds: UInt64
    private var lastFullWrite: UInt64?
    private var json = IncrementalResultsEncoder()

    package init(directory: URL, intervalSeconds: Double = 10) {
        self.directory = directory
        intervalNanoseconds = UInt64(intervalSeconds * 1e9)
    }

    package func write(_ results: RunResults) throws {
        try FileSystem.makeDirectory(directory)
        try FileSystem.writeAtomically(
            try json.jsonData(of: results), to: directory.appendingPathComponent(ReportFormat.json.fileName))
        let now = monotonicNanoseconds()
        if results.finishedAt != nil || lastFullWrite.map({ now - $0 >= intervalNanoseconds }) ?? true {
            try ReportWriter.write(results, to: directory, formats: [.csv, .md])
            lastFullWrite = now
        }
    }
}
