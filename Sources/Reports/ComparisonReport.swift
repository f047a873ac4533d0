import Foundation
import PersistenceBench

/// A comparison of two runs as Markdown: a verdict on top, then each store's time, what regressed, and every
/// cell's changes. Fit for a terminal and for a CI job summary (GitHub renders it).
public enum ComparisonReport {
    public static func render(_ comparison: RunComparison, baseline: String, current: String) -> String {
        let rule = comparison.rule
        var out: [String] = []
        let regressions = comparison.regressions
        out.append(regressions.isEmpty ? "# ✅ No regression" : "# ❌ \(regressions.count) regression(s)")
        out.append("")
        out.append("Baseline `\(baseline)`, current `\(current)`.")
        out.append("")
        if let base = comparison.baselineCalibration, let now = comparison.currentCalibration {
            out.append(
                "Calibration (median seconds of the fixed CPU and memory loop): baseline "
                    + "\(String(format: "%.4f", base)) s, current \(String(format: "%.4f", now)) s; this machine ran "
                    + "×\(RunComparison.format(base / now)) the baseline's speed. Time ratios below are divided by it.")
        } else {
            out.append("Calibration: missing in one run; times are compared as measured.")
        }
        out.append("")
        if !regressions.isEmpty {
            out.append("## Regressions")
            out.append("")
            for line in regressions { out.append("- \(line)") }
            out.append("")
        }
        out.append("## Time by store")
        out.append("")
        out.append(
            "Time ratio: the geometric mean over the store's cells of current ÷ baseline time per operation, "
                + "calibrated. The typical store (the median) changed ×"
                + RunComparison.format(comparison.typicalTimeRatio) + " (band ×"
                + RunComparison.format(rule.typicalBand) + ": \(mark(comparison.typicalVerdict))): a change every "
                + "store shares, the machine's or the code's. Each store is judged relative to it.")
        out.append("")
        out.append("| store | cells | time ratio | relative to typical | band | verdict |")
        out.append("|---|--:|--:|--:|--:|---|")
        for store in comparison.stores {
            out.append(
                "| `\(store.store)` | \(store.cells) | ×\(RunComparison.format(store.timeRatio)) | "
                    + "×\(RunComparison.format(store.relativeRatio)) | ×\(RunComparison.format(store.band)) | "
                    + "\(mark(store.verdict)) |")
        }
        out.append("")
        out.append("## Cells")
        out.append("")
        out.append(
            "Time: ratio of calibrated medians per operation, relative to the typical store, judged against the band (the wider of ×"
                + RunComparison.format(rule.minimumCellBand) + " and the repetitions' spread (slowest ÷ fastest) "
                + "to the power " + RunComparison.format(rule.spreadMultiplier) + "). Peak RSS: band ×"
                + RunComparison.format(rule.memoryBand) + ". Bytes on disk and digests: strict.")
        out.append("")
        out.append("| store | workload | scale | metric | baseline | current | ratio | band | verdict |")
        out.append("|---|---|--:|---|--:|--:|--:|--:|---|")
        for cell in comparison.cells {
            for change in cell.changes {
                out.append(
                    "| `\(cell.store)` | \(cell.workload) | \(cell.scale) | \(change.metric) | \(change.baseline) | "
                        + "\(change.current) | \(change.ratio.map { "×" + RunComparison.format($0) } ?? "") | "
                        + "\(change.band.map { "×" + RunComparison.format($0) } ?? "strict") | \(mark(change.verdict)) |"
                )
            }
        }
        if !comparison.notCompared.isEmpty {
            out.append("")
            out.append("## Not compared")
            out.append("")
            for line in comparison.notCompared { out.append("- \(line)") }
        }
        out.append("")
        return out.joined(separator: "\n")
    }

    private static func mark(_ verdict: Verdict) -> String {
        switch verdict {
        case .better: "better"
        case .same: "same"
        case .worse: "**worse**"
        }
    }
}
