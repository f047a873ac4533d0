import Foundation
import PersistenceBench

/// How `check` ends, for either judgement: its Markdown summary written to `summary` (and appended to GitHub's job
/// summary when `GITHUB_STEP_SUMMARY` is set), its ratios by store printed, then PASS, or FAIL with every
/// regression.
package struct CheckVerdict {
    package let summary: URL

    package init(summary: URL) { self.summary = summary }

    /// A time check (`RunSession.timeCheck`) of `repetitions` a side, judged: true when nothing regressed.
    package func time(_ check: TimeCheck, labels: Sides<String>, repetitions: Int) throws -> Bool {
        try publish(TimeReport.render(check, base: labels.base, current: labels.current, repetitions: repetitions))
        for (round, comparison) in [("first round", check.first), ("timed again", check.confirmation)] {
            guard let comparison else { continue }
            print(
                "Time by store, this build ÷ the base (\(round)): "
                    + (comparison.stores + (comparison.overall.map { [$0] } ?? [])).map {
                        "\($0.name) ×\(TimeReport.ratio($0.ratio))"
                    }.joined(separator: ", "))
        }
        if !check.notConfirmed.isEmpty {
            print(
                "Not slower when timed again (the machine's noise): "
                    + check.notConfirmed.map(\.name).joined(separator: ", "))
        }
        if let power = check.power {
            print(
                "Slowdown across a store's cells this check could catch (about half the time): "
                    + power.stores.map { "\($0.name) ×\(TimeReport.ratio($0.after)) (\($0.timed) repetitions)" }
                    .joined(separator: ", "))
        }
        let passed = conclude(check.regressions, against: labels.base)
        if passed, let power = check.power, !power.underpowered.isEmpty {
            print(
                "PASS, but underpowered: a slowdown of ×\(TimeReport.ratio(power.target)) across the cells of "
                    + power.underpowered.map { "\($0.name) (×\(TimeReport.ratio($0.after)) detectable)" }
                    .joined(separator: ", ")
                    + " could have passed: this host's noise asked for more repetitions than --power-time and "
                    + "\(TimeCheck.Power.rounds) power rounds allowed")
        }
        return passed
    }

    /// A counted run judged against its counted baseline: true when nothing regressed and nothing is better than
    /// the baseline beyond its band (the ratchet), unless `betterExpected`.
    ///
    /// A pair that cannot be compared is bad input.
    ///
    /// `runs` pairs each baseline's directory with the directory its matrix was counted in now: every cell whose
    /// counters moved beyond a band gets a differential flame graph from the stacks both kept, linked from the
    /// summary. `schedulingDependent`: per store, the counters its kind declares scheduling-dependent.
    package func counters(
        _ now: RunResults, against baseline: RunResults, labels: Sides<String>, betterExpected: Bool = false,
        runs: [Sides<URL>] = [], schedulingDependent: [String: [SchedulingDependentCounter: String]] = [:]
    ) throws -> Bool {
        let comparison: CounterComparison
        do {
            comparison = try CounterComparison(
                baseline: baseline, current: now, schedulingDependent: schedulingDependent)
        } catch {
            throw BadInput("\(error)")
        }
        let moved = comparison.cells.filter { $0.verdict != .same }.map(\.series.firstRepetition)
        let graphs = try FlameGraph.writeDifferentials(of: moved, baseline: baseline, current: now, runs: runs)
        try publish(
            CounterReport.render(
                comparison, baseline: labels.base, current: labels.current, betterExpected: betterExpected,
                flameGraphs: graphs.map { ($0.cell, link(to: $0.file)) }))
        for graph in graphs { print("Differential flame graph of \(graph.cell): \(graph.file.path)") }
        print(
            "Counters of \(comparison.cells.count) cells; instructions by store: "
                + comparison.stores.map { "\($0.name) ×\(CounterReport.ratio($0.instructionRatio))" }
                .joined(separator: ", "))
        let improvements = comparison.improvements
        guard comparison.regressions.isEmpty, !improvements.isEmpty else {
            return conclude(comparison.regressions, against: labels.base)
        }
        if betterExpected {
            print("Better than \(labels.base), as expected (--better-expected): remake the baseline to keep the gain")
            for line in improvements { print("  better: \(line)") }
            return conclude([], against: labels.base)
        }
        print("FAIL: \(improvements.count) counter(s) better than \(labels.base) beyond their band:")
        for line in improvements { print("  better: \(line)") }
        print(
            "Remake the baseline: count its matrix again with this build (`run --count` with its stores, workloads "
                + "and scales; here `make counter-baseline`) and commit it, saying why, or pass --better-expected")
        return false
    }

    /// `file` relative to the summary's directory when it is under it (check.md's links work where the directory
    /// is copied), else its full path.
    private func link(to file: URL) -> String {
        let directory = summary.deletingLastPathComponent().standardizedFileURL.path + "/"
        let path = file.standardizedFileURL.path
        return path.hasPrefix(directory) ? String(path.dropFirst(directory.count)) : path
    }

    /// Writes the Markdown summary, and appends it to GitHub's job summary when set.
    private func publish(_ markdown: String) throws {
        try FileSystem.writeAtomically(Data(markdown.utf8), to: summary)
        if let jobSummary = ProcessInfo.processInfo.environment["GITHUB_STEP_SUMMARY"], !jobSummary.isEmpty,
            let handle = FileHandle(forWritingAtPath: jobSummary)
        {
            handle.seekToEndOfFile()
            handle.write(Data(markdown.utf8))
            handle.closeFile()
        }
        print("Summary in \(summary.path)")
    }

    /// Prints PASS, or FAIL with every regression; true on PASS.
    private func conclude(_ regressions: [String], against reference: String) -> Bool {
        if regressions.isEmpty {
            print("PASS: no regression against \(reference)")
            return true
        }
        print("FAIL: \(regressions.count) regression(s) against \(reference):")
        for line in regressions { print("  \(line)") }
        return false
    }
}
