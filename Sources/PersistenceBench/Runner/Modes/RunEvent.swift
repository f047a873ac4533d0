import Foundation

/// What a run mode (`RunSession`) tells its sink besides each cell (`RunObserver`): the one channel from the modes to
/// the console.
package enum RunEvent: Sendable {
    /// `run --resume`: the cells kept from the interrupted run, and the groups begun on another machine, run again
    /// here whole.
    case resumed(output: URL, cellsKept: Int, machine: String, groupsRunAgain: [GroupID])
    /// `run --estimate-from`, before its first cell: the run's `cells` will take about `seconds`, from
    /// `measuredCells` cells of the runs named, `fixturesHeld` of the `fixturesNeeded` fixtures it loads in the cache
    /// already.
    case estimated(seconds: Double, cells: Int, measuredCells: Int, fixturesHeld: Int, fixturesNeeded: Int)
    /// Stores disagreed in `groups` groups: each is asked again in this process, every answer noted.
    case askingAgain(groups: Int)
    /// `run --count` in shares at once: each share's log and reports under `parts`.
    case countingInShares(stores: Int, shares: Int, parts: URL)
    /// `check --base`'s power round: `store`, after `repetitions`, could catch a slowdown of `detectable` across its
    /// cells, not `target`, and is timed `adding` more repetitions.
    case timingAgainForPower(store: String, repetitions: Int, detectable: Double, target: Double, adding: Int)
    /// `check --base`'s confirmation round: the stores the first round found slower, timed again.
    case confirming(slower: [String], timedAgain: [String], repetitions: Int)
    /// A run ended, its results and reports in `output`.
    case finished(RunResults, output: URL)
}

/// Where a mode's results and events go: the writer of a run's results and reports, the observer of its cells, and
/// the console's lines.
///
/// The reports give the tool's (`ReportSink`); the core knows none of them.
package protocol RunSink: Sendable {
    /// Writes a running matrix's results and reports into `directory`, called after every cell.
    func saver(into directory: URL) -> (RunResults) throws -> Void
    /// The observer of a run's cells: the console, or with `log`, that file.
    func observer(log: URL?) throws -> any RunObserver
    /// Says what happened.
    func event(_ event: RunEvent)
}
