import ArgumentParser
import Foundation
import PersistenceBench
import Reports

extension ReportFormat: ExpressibleByArgument {}

struct Report: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Re-render a run's reports from its results.json.")

    @Argument(help: "A run's output directory (holding results.json).")
    var directory: String

    @Option(help: "Comma-separated formats: md, csv, json.")
    var format: String = "md,csv,json"

    func validate() throws {
        _ = try formats()
        guard FileManager.default.fileExists(atPath: resultsPath) else {
            throw ValidationError("no results.json in '\(directory)'")
        }
    }

    private var resultsPath: String { URL(fileURLWithPath: directory).appendingPathComponent("results.json").path }

    private func formats() throws -> [ReportFormat] {
        try format.split(separator: ",", omittingEmptySubsequences: false).map { name in
            guard let format = ReportFormat(rawValue: String(name)) else {
                throw ValidationError("unknown format '\(name)'; known: md, csv, json")
            }
            return format
        }
    }

    func run() throws {
        let results = try RunResults.load(named: resultsPath)
        let claim = try OutputDirectory(directory, option: "the run's directory", use: .existing)
        defer { claim.release() }
        let formats = try formats()
        try ReportWriter.write(results, to: URL(fileURLWithPath: directory), formats: formats)
        print("Wrote " + formats.map(\.fileName).joined(separator: ", ") + " in \(directory)")
    }
}
