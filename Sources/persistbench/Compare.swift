import ArgumentParser
import Foundation
import PersistenceBench
import Reports

struct Compare: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Compare two finished runs of one matrix, cell by cell, with a verdict.",
        discussion: """
            Two counted runs (`run --count`) are judged as `check --counters` judges them. Two timed runs are judged \
            as `check --base` judges its two sides: per cell, the ratio of median times per operation, its \
            bootstrap interval and a rank test of the repetitions. That holds for runs made on one machine at one \
            time; two runs made apart also differ by what the machine did between them, which `check --base` \
            removes by timing both builds in turn, and the output says when the runs come from different boots. \
            Prints Markdown. Exit status: 0 (whatever the verdicts; `check` gates), 2 on bad input.
            """)

    @Argument(help: "The baseline: a run's directory or its results.json.")
    var baseline: String

    @Argument(help: "The run to judge: a run's directory or its results.json.")
    var current: String

    func run() throws {
        let base = try ResultsFile.load(baseline)
        let now = try ResultsFile.load(current)
        switch (base.configuration.counted == true, now.configuration.counted == true) {
        case (true, true):
            let comparison: CounterComparison
            do { comparison = try CounterComparison(baseline: base, current: now) } catch {
                throw ValidationError("\(error)")
            }
            print(CounterReport.render(comparison, baseline: baseline, current: current))
        case (false, false):
            let comparison: TimeComparison
            do { comparison = try TimeComparison(base: base, current: now) } catch {
                throw ValidationError("\(error)")
            }
            if base.environment.bootID == nil || base.environment.bootID != now.environment.bootID {
                print(
                    "Note: the two runs come from different boots (or machines): their time ratios hold what the "
                        + "machine did between them as well as what the code did. `check --base` times both builds "
                        + "in turn to leave only the code.\n")
            }
            print(
                TimeReport.render(
                    comparison, base: "`\(baseline)`", current: "`\(current)`",
                    repetitions: min(base.configuration.repetitions, now.configuration.repetitions)))
        default:
            throw ValidationError(
                "one run is counted (`run --count`) and the other timed: they share no metric to compare")
        }
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
}
