import ArgumentParser
import Foundation
import PersistenceBench
import Reports
import StoreCatalog

struct Compare: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Compare two finished runs of one matrix, cell by cell.",
        discussion: """
            Counted runs are judged as `check --counters` judges them; timed runs by `check --base`'s rule, with a \
            verdict only from 3 or more repetitions a side (runs made apart also differ by what the machine did \
            between them). Prints Markdown. Exit status: 0, 2 on bad input.
            """)

    @Argument(help: "The baseline: a run's directory or its results.json.")
    var baseline: String

    @Argument(help: "The run to judge: a run's directory or its results.json.")
    var current: String

    func run() throws {
        print(
            try RunComparison.markdown(
                try RunResults.load(named: baseline), try RunResults.load(named: current),
                labels: Sides(base: baseline, current: current), schedulingDependent: StoreCatalog.schedulingDependent))
    }
}
