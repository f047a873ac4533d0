import Foundation
import PersistenceBench

extension TimeComparison {
    /// Every regression of this one round, one line each (as `compare` judges two runs): no cell compared at all,
    /// each cell whose answers differ, then each subject found slower.
    package var regressions: [String] {
        (nothingCompared.map { [$0] } ?? []) + answersDiffer + slower.map { $0.name + Self.figures($0) }
    }

    /// A line per cell whose digests differ between the builds: a wrong answer fails whatever its time.
    var answersDiffer: [String] { (differentAnswers ?? []).map { "answers differ: \($0)" } }

    /// A base that cannot run this build's cells compares none: a failure, whatever the rounds find.
    var nothingCompared: String? {
        guard cells.isEmpty, let reason = notCompared.first else { return nil }
        return "no cell compared (\(notCompared.count) not compared), the first: \(reason)"
    }

    /// What follows a subject's name in its line: its ratio and interval (and p for a cell), or why it did not finish.
    static func figures(_ subject: Subject) -> String {
        switch subject.kind {
        case .unfinished(let cell): " (\(cell.reason))"
        case .cell(let cell):
            ": time/op ×\(TimeReport.ratio(cell.ratio)) "
                + "[\(TimeReport.ratio(cell.low))–\(TimeReport.ratio(cell.high))], p \(TimeReport.p(cell.pSlower))"
        case .summary(let summary):
            ": time ×\(TimeReport.ratio(summary.ratio)) "
                + "[\(TimeReport.ratio(summary.low))–\(TimeReport.ratio(summary.high))] over \(summary.cells) cells"
        }
    }
}

extension TimeCheck {
    /// The check's regressions, one line each: no cell compared at all, then each subject both rounds found slower,
    /// with both rounds' figures.
    package var regressions: [String] {
        let again = Dictionary(
            (confirmation?.slower ?? []).map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        // A digest that differs is no noise: it needs no second round.
        return (first.nothingCompared.map { [$0] } ?? []) + first.answersDiffer
            + confirmed.compactMap { subject in
                again[subject.name].map {
                    subject.name + TimeComparison.figures(subject) + "; timed again" + TimeComparison.figures($0)
                }
            }
    }
}

/// An interleaved time check as Markdown: the verdict, the regressions, each store and every store together, then
/// every cell with both sides' medians, the ratio, its interval, the test and each side's spread; for a check, the
/// first round's and the confirmation round's.
package enum TimeReport {
    /// One round judged on its own (`compare` of two timed runs).
    package static func render(_ comparison: TimeComparison, base: String, current: String, repetitions: Int) -> String
    {
        let regressions = comparison.regressions
        var out =
            headline(regressions) + [rule(comparison.rule, base: base, current: current, repetitions: repetitions)]
        out += regressionList(regressions) + tables(comparison, level: "##")
        return out.joined(separator: "\n") + "\n"
    }

    /// The fewest repetitions a side `compare` gives a verdict from: with fewer, a rank test has nothing to rank.
    package static let fewestRepetitionsForAVerdict = 3

    /// `compare`'s two runs, made apart (not in turn in one session): what the rule would say, and with fewer than
    /// `fewestRepetitionsForAVerdict` repetitions a side no verdict, only the ratios.
    package static func renderApart(
        _ comparison: TimeComparison, base: String, current: String, repetitions: Sides<Int>
    ) -> String {
        let fewest = min(repetitions.base, repetitions.current)
        let judged = fewest >= fewestRepetitionsForAVerdict
        let rule = comparison.rule
        var out = [
            judged
                ? headline(comparison.regressions)[0]
                : "# Time: no verdict (\(fewest) repetition\(fewest == 1 ? "" : "s") a side; a verdict needs "
                    + "\(fewestRepetitionsForAVerdict))",
            "",
            "Base \(base) (\(repetitions.base) repetitions), current \(current) (\(repetitions.current)): two runs "
                + "made apart, compared cell by cell. A cell is slower when its median time per operation is "
                + "×\(ratio(rule.cellEffect)) or more the base's, the \(Int(rule.confidence * 100)) % bootstrap "
                + "interval of that ratio lies above 1 and a one-sided Mann–Whitney test gives p ≤ \(p(rule.alpha)). "
                + "Spread: each side's slowest ÷ fastest repetition.",
        ]
        if judged { out += regressionList(comparison.regressions) } else { out.append("") }
        out += tables(comparison, level: "##", verdicts: judged)
        return out.joined(separator: "\n") + "\n"
    }

    /// The check's two rounds: what both found slower, what only the first did, and each round's tables.
    package static func render(_ check: TimeCheck, base: String, current: String, repetitions: Int) -> String {
        let regressions = check.regressions
        var top = headline(regressions)
        if regressions.isEmpty, let power = check.power, !power.underpowered.isEmpty {
            top[0] =
                "# ⚠️ Time: no regression found, but underpowered for "
                + power.underpowered.map(\.name).joined(separator: ", ")
        }
        var out =
            top + [
                rule(check.first.rule, base: base, current: current, repetitions: repetitions), "",
                "Whatever the first round finds slower is timed again in a confirmation round: only the stores "
                    + "concerned, \(TimeCheck.confirmationRepetitions(after: repetitions)) repetitions of each build, "
                    + "this build first in odd repetitions, in new processes. A regression is what both rounds find "
                    + "slower; what only the first does was the machine's noise.",
            ]
        out += regressionList(regressions)
        if let power = check.power { out += powerSection(power, first: check.first, repetitions: repetitions) }
        if !check.notConfirmed.isEmpty {
            out +=
                ["## Found slower by the first round only (not a regression)", ""]
                + check.notConfirmed.map { "- \($0.name)\(TimeComparison.figures($0))" } + [""]
        }
        out += ["## First round", ""] + tables(check.first, level: "###")
        if let confirmation = check.confirmation {
            out +=
                [
                    "", "## Confirmation round: \(confirmation.stores.map(\.name).joined(separator: ", "))", "",
                ] + tables(confirmation, level: "###")
        }
        return out.joined(separator: "\n") + "\n"
    }

    /// What the check could catch on this host: each store's detectable slowdown before and after its power round,
    /// and the slowdown it catches four times in five through both rounds.
    private static func powerSection(_ power: TimeCheck.Power, first: TimeComparison, repetitions: Int) -> [String] {
        let confirmation = TimeCheck.confirmationRepetitions(after: repetitions)
        var out = [
            "## What this check could catch", "",
            "The smallest slowdown across a store's cells that this host's noise let the rule call slower in one "
                + "round (its minimum detectable effect: the interval's reach below its ratio, at least ×"
                + "\(ratio(TimeComparison.Rule.standard.aggregateEffect)); a slowdown of that size is caught about "
                + "half the time in that round). A store whose first round (\(repetitions) repetitions "
                + "a side) could not catch ×\(ratio(power.target)) was timed again with the repetitions it needed "
                + "(an interval narrows as the square root of its samples), all within "
                + Quantity.formatDuration(power.budgetSeconds) + " and \(TimeCheck.Power.rounds) rounds, each "
                + "sized from every repetition so far, and judged on every repetition.",
            "",
            "**Caught 4 in 5:** the slowdown a regression must have for this check to fail it with probability "
                + "0.8, through the first round and the confirmation round (\(confirmation) repetitions a side) "
                + "alike: a normal approximation of each round's log ratio, its error read off the first round's "
                + "interval and, for the confirmation, scaled by the square root of the ratio of the repetitions "
                + "(narrower than the first round's unless power rounds gave that more), both rounds clearing their "
                + "interval's bar and ×\(ratio(TimeComparison.Rule.standard.aggregateEffect)). An estimate from this "
                + "run's noise; docs/regression-checks.md gives the catch rates measured by injected slowdowns.",
            "",
        ]
        if !power.underpowered.isEmpty {
            out += [
                "**Underpowered:** a slowdown of ×\(ratio(power.target)) across the cells of "
                    + power.underpowered.map(\.name).joined(separator: ", ")
                    + " could have passed: this host's noise asked for more repetitions than the budget "
                    + "(`--power-time`) and its rounds allowed.",
                "",
            ]
        }
        out += [
            "| store | detectable, first round | repetitions needed | repetitions timed | detectable now | "
                + "caught 4 in 5 | s a repetition |",
            "|---|--:|--:|--:|--:|--:|--:|",
        ]
        for store in power.stores {
            let fourInFive = first.stores.first { $0.name == store.name }.map { summary in
                TimeComparison.caughtFourInFive(
                    ratio: summary.ratio, low: summary.low, effect: first.rule.aggregateEffect,
                    confidence: first.rule.confidence, repetitions: store.timed, confirmation: confirmation)
            }
            out.append(
                "| \(store.name) | ×\(ratio(store.before)) | \(store.needed == Int.max ? "—" : "\(store.needed)") | "
                    + "\(store.timed) | ×\(ratio(store.after))\(store.after > power.target ? " ⚠️" : "") | "
                    + "\(detectable(fourInFive)) | " + String(format: "%.1f", store.secondsPerRepetition) + " |")
        }
        return out + [""]
    }

    private static func headline(_ regressions: [String]) -> [String] {
        [regressions.isEmpty ? "# ✅ Time: no regression" : "# ❌ Time: \(regressions.count) regression(s)", ""]
    }

    private static func rule(_ rule: TimeComparison.Rule, base: String, current: String, repetitions: Int) -> String {
        "Base \(base), current \(current): both builds timed on this machine in one session, each cell's "
            + "\(repetitions) repetitions of each in turn (base, current; current, base; …). A cell is slower "
            + "when its median time per operation is ×\(ratio(rule.cellEffect)) or more the base's, the "
            + "\(Int(rule.confidence * 100)) % bootstrap interval of that ratio lies above 1 and a one-sided "
            + "Mann–Whitney test gives p ≤ \(p(rule.alpha)); a store's cells together, or every cell together, "
            + "when the geometric mean of their ratios is ×\(ratio(rule.aggregateEffect)) or more and its "
            + "interval lies above 1. Spread: each side's slowest ÷ fastest repetition, the noise this machine "
            + "showed for the cell."
    }

    private static func regressionList(_ regressions: [String]) -> [String] {
        [""] + (regressions.isEmpty ? [] : ["## Regressions", ""] + regressions.map { "- \($0)" } + [""])
    }

    /// A round's stores together, then its cells; `level` is their headings'.
    private static func tables(_ comparison: TimeComparison, level: String, verdicts: Bool = true) -> [String] {
        var out = [
            "\(level) By store", "",
            "| store | cells | time ratio | interval | detectable | verdict |", "|---|--:|--:|--:|--:|---|",
        ]
        for summary in comparison.stores + (comparison.overall.map { [$0] } ?? []) {
            out.append(
                "| \(summary.name) | \(summary.cells) | ×\(ratio(summary.ratio)) | "
                    + "\(ratio(summary.low))–\(ratio(summary.high)) | \(detectable(summary.detectable)) | "
                    + "\(verdicts ? mark(summary.verdict) : "—") |")
        }
        out += [
            "", "\(level) Cells", "",
            "| store | workload | scale | repetitions | base | current | ratio | interval | p (slower) | "
                + "spread base / current | detectable | verdict |",
            "|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|---|",
        ]
        for cell in comparison.cells {
            out.append(
                "| \(cell.store) | \(cell.workload) | \(cell.scale) | \(cell.current.count) | \(time(cell.base)) | "
                    + "\(time(cell.current)) | ×\(ratio(cell.ratio)) | "
                    + "\(ratio(cell.low))–\(ratio(cell.high)) | \(p(cell.pSlower)) | "
                    + "×\(ratio(cell.baseSpread)) / ×\(ratio(cell.currentSpread)) | \(detectable(cell.detectable)) | "
                    + "\(verdicts ? mark(cell.verdict) : "—") |")
        }
        if !comparison.notCompared.isEmpty {
            out += ["", "Not compared:", ""] + comparison.notCompared.map { "- \($0)" }
        }
        return out
    }

    package static func ratio(_ value: Double) -> String { String(format: "%.3f", value) }
    /// A minimum detectable effect: "×1.234", "—" where the comparison did not keep it or its interval reached 0.
    static func detectable(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "—" }
        return "×" + ratio(value)
    }
    /// The median of a cell's times per operation.
    static func time(_ values: [Double]) -> String { median(values).map(Quantity.formatTime) ?? "–" }
    static func p(_ value: Double) -> String { String(format: "%.3f", value) }

    static func mark(_ verdict: Verdict) -> String {
        switch verdict {
        case .better: "faster"
        case .same: "same"
        case .worse: "**slower**"
        }
    }
}
