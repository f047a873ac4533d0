import ArgumentParser
import Foundation
import PersistenceBench
import Reports
import StoreCatalog

struct Compare: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Compare two finished runs of one matrix, cell by cell.",
        discussion: """
            Two counted runs (`run --count`) are judged as `check --counters` judges them. Two timed runs are \
            compared with `check --base`'s rule: per cell, the ratio of median times per operation, its bootstrap \
            interval and a rank test of the repetitions, with a verdict only from 3 or more repetitions a side. \
            Two runs made apart also differ by what the machine did between them, which `check --base` removes by \
            timing both builds in turn; the output says when the runs come from different boots. Prints Markdown. \
            Exit status: 0 (whatever the verdicts; `check` gates), 2 on bad input.
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
