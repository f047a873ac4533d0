import Foundation
import PersistenceBench

/// The formats a run is written in.
public enum ReportFormat: String, CaseIterable, Sendable {
    case json, csv, md

    public var fileName: String {
        switch self {
        case .json: "results.json"
        case .csv: "results.csv"
        case .md: "report.md"
        }
    }
}

/// Writes a run's results to a directory, each file replaced atomically; with `report.md`, its SVG charts in
/// `charts/`.
public enum ReportWriter {
    public static func write(_ results: RunResults, to directory: URL, formats: [ReportFormat] = ReportFormat.allCases)
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
        }
    }
}
