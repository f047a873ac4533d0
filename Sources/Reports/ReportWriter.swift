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
        for (path, data) in try renderings(of: results, formats: formats) {
            if path.hasPrefix(Charts.directoryName + "/") {
                try FileSystem.makeDirectory(directory.appendingPathComponent(Charts.directoryName))
            }
            try FileSystem.writeAtomically(data, to: directory.appendingPathComponent(path))
        }
        // A counted run's cells' flame graphs, from the stacks each kept.
        if formats.contains(.md), results.configuration.counted == true {
            try FlameGraph.writeGraphs(of: results, in: directory)
        }
    }

    /// What `write` writes from `results` alone, by path in the run's directory: each format's file and, with
    /// `report.md`, the charts it links (a counted run's flame graphs are drawn from the stacks its cells kept).
    package static func renderings(of results: RunResults, formats: [ReportFormat] = ReportFormat.allCases) throws
        -> [(path: String, data: Data)]
    {
        var files: [(path: String, data: Data)] = []
        for format in formats {
            switch format {
            case .json: files.append((format.fileName, try results.jsonData()))
            case .csv: files.append((format.fileName, Data(CSVReport.render(results).utf8)))
            case .md: files.append((format.fileName, Data(MarkdownReport.render(results).utf8)))
            }
        }
        if formats.contains(.md) {
            files += Charts.render(results).map { (Charts.directoryName + "/" + $0.name, Data($0.svg.utf8)) }
        }
        return files
    }

    /// The files of a committed run that this build would render otherwise from its `results.json`: each differing
    /// file, each chart `report.md` links that is missing, and each chart in `charts/` this build no longer draws.
    ///
    /// A run committed without its `report.md` or `results.csv` is checked on what it has. Empty when it is current.
    package static func staleFiles(of results: RunResults, in directory: URL) throws -> [String] {
        let exists = { (path: String) in
            FileManager.default.fileExists(atPath: directory.appendingPathComponent(path).path)
        }
        let hasReport = exists(ReportFormat.md.fileName)
        let rendered = try renderings(of: results, formats: [.csv, .md]).filter { path, _ in
            path.hasPrefix(Charts.directoryName + "/") ? hasReport : exists(path)
        }
        var stale = rendered.compactMap { path, data in
            (try? Data(contentsOf: directory.appendingPathComponent(path))) == data ? nil : path
        }
        let charts = directory.appendingPathComponent(Charts.directoryName)
        if !hasReport, FileManager.default.fileExists(atPath: charts.path) {
            stale.append("report.md (missing beside its charts)")
        }
        let drawn = Set(rendered.map(\.path))
        let committed = hasReport ? (try? FileManager.default.contentsOfDirectory(atPath: charts.path)) ?? [] : []
        stale += committed.filter { $0.hasSuffix(".svg") }.map { Charts.directoryName + "/" + $0 }
            .filter { !drawn.contains($0) }.sorted().map { $0 + " (no longer drawn)" }
        return stale
    }
}

/// Writes a running matrix's results after every cell: `results.json` at once (what `--resume` and `report` read),
/// each cell encoded once (`IncrementalResultsEncoder`), the CSV, the Markdown report and its charts at most every
/// `interval` seconds and when the run has finished.
///
/// Rendering every report after every cell took a third of the default run's time.
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

extension ReportWriter {
    // MARK: - Committed runs, checked

    /// `report --check`: one line for each run in `directories` whose files this build would render otherwise, and
    /// the last line saying how many are current or stale; `current` is false when one is stale.
    package static func check(_ directories: [String]) throws -> (lines: [String], current: Bool) {
        var lines: [String] = []
        var unrendered = 0
        for directory in directories {
            let url = URL(fileURLWithPath: directory)
            let results = try RunResults.load(named: url.appendingPathComponent("results.json").path)
            if ![ReportFormat.md, .csv].contains(where: {
                FileManager.default.fileExists(atPath: url.appendingPathComponent($0.fileName).path)
            }) {
                unrendered += 1
            }
            let files = try staleFiles(of: results, in: url)
            if !files.isEmpty {
                lines.append("\(directory): \(files.joined(separator: ", ")): not what this build renders")
            }
        }
        guard lines.isEmpty else {
            let summary =
                "\(lines.count) of \(directories.count) run(s) stale: re-render each with `persistbench report DIR`"
            return (lines + [summary], false)
        }
        let kept =
            unrendered > 0 ? " (\(unrendered) of them committed with results.json alone: nothing to compare)" : ""
        return (["Current: \(directories.count) run(s) render as committed\(kept)"], true)
    }
}
