import ArgumentParser
import Foundation
import PersistenceBench
import Reports

extension ReportFormat: ExpressibleByArgument {}

struct Report: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Re-render a run's reports from its results.json, or check that committed runs are current.",
        discussion: """
            With --check, nothing is written: exit 1 names every run whose report.md, results.csv or charts this \
            build would render otherwise, 2 on bad input.
            """)

    @Argument(help: "A run's output directory (holding results.json); with --check, one or more.")
    var directories: [String]

    @Option(help: "Comma-separated formats: md, csv, json.")
    var format: String = "md,csv,json"

    @Flag(help: "Write nothing: exit 1 when a directory's reports differ from what this build renders.")
    var check = false

    func validate() throws {
        _ = try formats()
        guard !directories.isEmpty else { throw ValidationError("name a run's directory") }
        guard check || directories.count == 1 else {
            throw ValidationError("re-render one run at a time (\(directories.count) given); --check takes several")
        }
        for directory in directories where !FileManager.default.fileExists(atPath: resultsPath(directory)) {
            throw ValidationError("no results.json in '\(directory)'")
        }
    }

    private func resultsPath(_ directory: String) -> String {
        URL(fileURLWithPath: directory).appendingPathComponent("results.json").path
    }

    private func formats() throws -> [ReportFormat] {
        try format.split(separator: ",", omittingEmptySubsequences: false).map { name in
            guard let format = ReportFormat(rawValue: String(name)) else {
                throw ValidationError("unknown format '\(name)'; known: md, csv, json")
            }
            return format
        }
    }

    func run() throws {
        if check {
            let (lines, current) = try ReportWriter.check(directories)
            lines.forEach { print($0) }
            if !current { throw ExitCode(1) }
            return
        }
        let directory = directories[0]
        let results = try RunResults.load(named: resultsPath(directory))
        let claim = try OutputDirectory(directory, option: "the run's directory", use: .existing)
        defer { claim.release() }
        let formats = try formats()
        try ReportWriter.write(results, to: URL(fileURLWithPath: directory), formats: formats)
        print("Wrote " + formats.map(\.fileName).joined(separator: ", ") + " in \(directory)")
        // A chart an earlier build drew is the user's to remove: this command deletes nothing.
        let undrawn = try ReportWriter.staleFiles(of: results, in: URL(fileURLWithPath: directory)).filter {
            $0.hasSuffix("(no longer drawn)")
        }
        if !undrawn.isEmpty { print("This build no longer draws " + undrawn.joined(separator: ", ")) }
    }
}
