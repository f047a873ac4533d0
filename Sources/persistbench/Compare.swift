import ArgumentParser
import Foundation
import PersistenceBench
import Reports

struct Compare: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Compare two finished runs: each metric's change per (store, workload, scale), with a verdict.",
        discussion: """
            Each cell is classed by what bounds it (CPU and memory, or waits on durable writes, from its own \
            counters); its time per operation is divided by the matching probe of the machine and by the typical \
            store's change over cells of its bound, and judged against a band drawn from measured spreads; bytes on \
            disk and digests strictly (README, "Regression checks"). Prints Markdown. Exit status: 0 (whatever the \
            verdicts; `check` gates), 2 on bad input.
            """)

    @Argument(help: "The baseline: a run's directory or its results.json.")
    var baseline: String

    @Argument(help: "The run to judge: a run's directory or its results.json.")
    var current: String

    func run() throws {
        let base = try ResultsFile.load(baseline)
        let now = try ResultsFile.load(current)
        let comparison = try ResultsFile.compare(base, now)
        print(ComparisonReport.render(comparison, baseline: baseline, current: current))
    }
}

/// Reading results named on the command line; every failure is bad input (exit status 2).
enum ResultsFile {
    /// `path` is a run's directory or a results.json.
    static func load(_ path: String) throws -> RunResults {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ValidationError("no such file or directory: '\(path)'")
        }
        let url = URL(fileURLWithPath: path)
        let file = isDirectory.boolValue ? url.appendingPathComponent("results.json") : url
        do { return try RunResults.load(from: file) } catch { throw ValidationError("\(error)") }
    }

    static func compare(_ baseline: RunResults, _ current: RunResults) throws -> RunComparison {
        do { return try RunComparison(baseline: baseline, current: current) } catch {
            throw ValidationError("\(error)")
        }
    }
}
