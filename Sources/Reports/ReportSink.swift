import Foundation
import PersistenceBench

/// The tool's sink of a run mode (`RunSession`): the reports written as the run goes (`RunningReportWriter`), its
/// cells on the console or in a share's log (`ConsoleProgress`), and each event as the lines a user reads.
package struct ReportSink: RunSink {
    package init() {}

    package func saver(into directory: URL) -> (RunResults) throws -> Void {
        let writer = RunningReportWriter(directory: directory)
        return { try writer.write($0) }
    }

    package func observer(log: URL?) throws -> any RunObserver {
        try log.map { try ConsoleProgress(log: $0) } ?? ConsoleProgress()
    }

    package func event(_ event: RunEvent) {
        switch event {
        case .resumed(let output, let kept, let machine, let groups):
            print("Resuming \(output.path): \(kept) finished cells kept")
            guard !groups.isEmpty else { return }
            print(
                "This machine (\(machine)) is not the one that began "
                    + groups.map(\.description).joined(separator: ", ")
                    + ": each runs again here whole, so that its stores are compared on one machine")
        case .askingAgain(let groups):
            print("Asking \(groups) disagreeing group(s) again, each answer noted, to find the first that differs")
        case .estimated(let seconds, let cells, let measured, let held, let needed):
            print(
                "Estimate: about \(Quantity.formatDuration(seconds)) for the \(cells) cells that apply (the rest are n/a), from \(measured) "
                    + "cells measured before (--estimate-from, on its machine)"
                    + (needed == 0 ? "" : "; \(held) of the \(needed) fixtures it loads are cached already"))
        case .countingInShares(let stores, let shares, let parts):
            print("Counting \(stores) stores in \(shares) shares at once; their logs are under \(parts.path)/")
        case .timingAgainForPower(let store, let repetitions, let detectable, let target, let adding):
            print(
                "\(store): \(repetitions) repetitions could catch a slowdown of ×\(TimeReport.ratio(detectable)) "
                    + "across its cells, not ×\(TimeReport.ratio(target)); timing it \(adding) more "
                    + (adding == 1 ? "repetition" : "repetitions"))
        case .confirming(let slower, let again, let repetitions):
            print(
                "Found slower: " + slower.joined(separator: ", ") + "; timing \(again.joined(separator: ", ")) "
                    + "again, \(repetitions) repetitions each, this build first")
        case .finished(let results, let output):
            Self.printOutcome(results, output: output)
        }
        // Out at once, as each cell's line is (`ConsoleProgress`): into a log or a pipe, `print` held it to the end.
        fflush(nil)
    }

    /// Where the reports are, and any digest mismatch, error and DNF.
    static func printOutcome(_ results: RunResults, output: URL) {
        print("Wrote \(output.path)/report.md, results.csv and results.json")
        let fixtures = results.cells.compactMap(\.fixture)
        if let place = results.configuration.fixtureCache, !fixtures.isEmpty {
            let built = fixtures.filter(\.built).count
            print("Fixtures: \(built) built, \(fixtures.count - built) reused, kept in \(place.directory)")
        }
        let mismatches = results.digestChecks.filter { !$0.agreed }
        for check in mismatches {
            print("DIGEST MISMATCH: \(check.workload) at \(check.scale): \(check.digestsDescription)")
            if let difference = results.difference(in: check) { print("  " + difference.summary) }
        }
        let errors = results.cells.filter { $0.status == .error }
        let unfinished = results.cells.filter { $0.status == .dnf }
        if !errors.isEmpty { print("\(errors.count) cell(s) failed with an error; see report.md") }
        if !unfinished.isEmpty { print("\(unfinished.count) cell(s) did not finish (DNF); see report.md") }
        guard mismatches.isEmpty else { return }
        print(digestSummary(results.digestChecks))
    }

    /// What the digest check compared, in one line: the groups whose stores' answers were held against each other,
    /// and those that had one store's cells (not compared) or none that finished.
    static func digestSummary(_ checks: [DigestCheck]) -> String {
        let compared = checks.filter(\.compared).count
        let alone = checks.count - compared
        guard !checks.isEmpty else { return "No digests compared: no cell finished" }
        return "Digests agree: \(compared) (workload, scale) group\(compared == 1 ? "" : "s") compared across stores"
            + (alone == 0
                ? ""
                : "; \(alone) with one store's cells only, not compared (its repetitions agree with each other)")
    }
}
