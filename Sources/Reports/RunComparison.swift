import PersistenceBench

/// `compare`: two finished runs of one matrix, cell by cell, as Markdown.
///
/// Two counted runs are judged as `check --counters` judges them, two timed runs as `check --base` judges its two
/// sides, with a note when they come from different boots; a pair that cannot be compared is bad input.
package enum RunComparison {
    /// `schedulingDependent`: per store, the counters its kind declares scheduling-dependent, shown and not judged.
    package static func markdown(
        _ base: RunResults, _ now: RunResults, labels: Sides<String>,
        schedulingDependent: [String: [SchedulingDependentCounter: String]] = [:]
    ) throws -> String {
        switch (base.configuration.counted == true, now.configuration.counted == true) {
        case (true, true):
            let comparison: CounterComparison
            do {
                comparison = try CounterComparison(
                    baseline: base, current: now, schedulingDependent: schedulingDependent)
            } catch {
                throw BadInput("\(error)")
            }
            return CounterReport.render(comparison, baseline: labels.base, current: labels.current)
        case (false, false):
            let comparison: TimeComparison
            do { comparison = try TimeComparison(base: base, current: now) } catch { throw BadInput("\(error)") }
            let note =
                base.environment.bootID == nil || base.environment.bootID != now.environment.bootID
                ? "Note: the two runs come from different boots (or machines): their time ratios hold what the "
                    + "machine did between them as well as what the code did. `check --base` times both builds "
                    + "in turn to leave only the code.\n\n" : ""
            return note
                + TimeReport.renderApart(
                    comparison, base: "`\(labels.base)`", current: "`\(labels.current)`",
                    repetitions: Sides(base: base.configuration.repetitions, current: now.configuration.repetitions))
        default:
            throw BadInput("one run is counted (`run --count`) and the other timed: they share no metric to compare")
        }
    }
}
