import ArgumentParser
import Foundation
import PersistenceBench
import Reports

struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a run's results in another tool's format.",
        discussion: """
            github-action-benchmark: the JSON its `tool: customSmallerIsBetter` reads, the median time per operation \
            in µs of each store, workload and scale.
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case githubActionBenchmark = "github-action-benchmark"
    }

    @Option(help: "The format to write: \(Format.allCases.map(\.rawValue).joined(separator: ", ")).")
    var format: Format

    @Option(
        name: .customLong("run"),
        help: ArgumentHelp("The run to export (a directory holding results.json).", valueName: "DIR"))
    var runDirectory = "results/latest"

    @Argument(help: "The file to write.")
    var file: String

    private var resultsPath: String { URL(fileURLWithPath: runDirectory).appendingPathComponent("results.json").path }

    func validate() throws {
        guard FileManager.default.fileExists(atPath: resultsPath) else {
            throw ValidationError("no results.json in '\(runDirectory)': pass a run's directory with --run")
        }
    }

    func run() throws {
        try OutputPath.requireFile(file, option: "the export file")
        let results = try RunResults.load(named: resultsPath)
        guard results.cells.contains(where: { $0.status == .ok }) else {
            throw BadInput("\(resultsPath) has no finished cell to export (\(results.cells.count) cells, none ok)")
        }
        let text: String
        switch format {
        case .githubActionBenchmark: text = try BenchmarkActionExport.render(results)
        }
        try FileSystem.writeDurably(Data(text.utf8), to: URL(fileURLWithPath: file))
        print("Wrote \(file) (\(format.rawValue)) from \(resultsPath)")
    }
}
