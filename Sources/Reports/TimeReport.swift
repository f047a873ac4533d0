import Foundation
import PersistenceBench

extension TimeComparison {
    /// Every regression, one line each: cells this build no longer finishes, no cell compared at all, cells,
    /// stores, every store together.
    public var regressions: [String] {
        var lines = unfinished.map { "no longer finishes: \($0)" }
        // A check that compared nothing passed nothing: a base that cannot run this build's cells is a failure.
        if cells.isEmpty, let reason = notCompared.first {
            lines.append("no cell compared (\(notCompared.count) not compared), the first: \(reason)")
        }
        for cell in cells where cell.verdict == .worse {
            lines.append(
                "\(cell.store) \(cell.workload) \(cell.scale): time/op ×\(TimeReport.ratio(cell.ratio)) "
                    + "[\(TimeReport.ratio(cell.low))–\(TimeReport.ratio(cell.high))], p \(TimeReport.p(cell.pSlower))")
        }
        for summary in stores + (overall.map { [$0] } ?? []) where summary.verdict == .worse {
            lines.append(
                "\(summary.name): time ×\(TimeReport.ratio(summary.ratio)) "
                    + "[\(TimeReport.ratio(summary.low))–\(TimeReport.ratio(summary.high))] over \(summary.cells) cells"
            )
        }
        return lines
    }
}

/// An interleaved time check as Markdown: the verdict, the regressions, each store and every store together, then
/// every cell with both sides' medians, the ratio, its interval, the test and each side's spread.
public enum TimeReport {
    public static func render(_ comparison: TimeComparison, base: String, current: String, repetitions: Int) -> String {
        let rule = comparison.rule
        let regressions = comparison.regressions
        var out = [
            regressions.isEmpty ? "# ✅ Time: no regression" : "# ❌ Time: \(regressions.count) regression(s)",
            "",
            "Base \(base), current \(current): both builds timed on this machine in one session, each cell's "
                + "\(repetitions) repetitions of each in turn (base, current; current, base; …). A cell is slower "
                + "when its median time per operation is ×\(ratio(rule.cellEffect)) or more the base's, the "
                + "\(Int(rule.confidence * 100)) % bootstrap interval of that ratio lies above 1 and a one-sided "
                + "Mann–Whitney test gives p ≤ \(p(rule.alpha)); a store's cells together, or every cell together, "
                + "when the geometric mean of their ratios is ×\(ratio(rule.aggregateEffect)) or more and its "
                + "interval lies above 1. Spread: each side's slowest ÷ fastest repetition, the noise this machine "
                + "showed for the cell.",
            "",
        ]
        if !regressions.isEmpty {
            out += ["## Regressions", ""] + regressions.map { "- \($0)" } + [""]
        }
        out += ["## By store", "", "| store | cells | time ratio | interval | verdict |", "|---|--:|--:|--:|---|"]
        for summary in comparison.stores + (comparison.overall.map { [$0] } ?? []) {
            out.append(
                "| \(summary.name) | \(summary.cells) | ×\(ratio(summary.ratio)) | "
                    + "\(ratio(summary.low))–\(ratio(summary.high)) | \(mark(summary.verdict)) |")
        }
        out += [
            "", "## Cells", "",
            "| store | workload | scale | base | current | ratio | interval | p (slower) | spread base / current | verdict |",
            "|---|---|---|--:|--:|--:|--:|--:|--:|---|",
        ]
        for cell in comparison.cells {
            out.append(
                "| \(cell.store) | \(cell.workload) | \(cell.scale) | \(Quantity.formatTime(median(cell.base)!)) | "
                    + "\(Quantity.formatTime(median(cell.current)!)) | ×\(ratio(cell.ratio)) | "
                    + "\(ratio(cell.low))–\(ratio(cell.high)) | \(p(cell.pSlower)) | "
                    + "×\(ratio(cell.baseSpread)) / ×\(ratio(cell.currentSpread)) | \(mark(cell.verdict)) |")
        }
        if !comparison.notCompared.isEmpty {
            out += ["", "Not compared:", ""] + comparison.notCompared.map { "- \($0)" }
        }
        return out.joined(separator: "\n") + "\n"
    }

    package static func ratio(_ value: Double) -> String { String(format: "%.3f", value) }
    static func p(_ value: Double) -> String { String(format: "%.3f", value) }

    static func mark(_ verdict: Verdict) -> String {
        switch verdict {
        case .better: "faster"
        case .same: "same"
        case .worse: "**slower**"
        }
    }
}
