import Foundation
import PersistenceBench

extension CounterComparison {
    /// Every regression, one line each: cells, stores, every cell together, digests that disagree.
    package var regressions: [String] {
        var lines: [String] = []
        for cell in cells {
            for change in cell.changes where change.verdict == .worse {
                lines.append(
                    "\(cell.store) \(cell.workload) \(cell.scale): \(change.metric) \(change.baseline) → "
                        + "\(change.current)" + (change.ratio.map { " (×\(CounterReport.ratio($0)))" } ?? ""))
            }
        }
        for summary in stores + (overall.map { [$0] } ?? []) where summary.verdict == .worse {
            lines.append(
                "\(summary.name): instructions ×\(CounterReport.ratio(summary.instructionRatio)) over "
                    + "\(summary.cells) cells (band ×\(CounterReport.ratio(bands.storeInstructions)))")
        }
        lines += digestDisagreements.map { "digests disagree across stores: \($0)" }
        return lines
    }
}

/// A counter comparison as Markdown: the verdict, the regressions, instructions by store, then every cell's
/// counters. Fit for a terminal and a CI job summary.
package enum CounterReport {
    package static func render(_ comparison: CounterComparison, baseline: String, current: String) -> String {
        let bands = comparison.bands
        let regressions = comparison.regressions
        var out = [
            regressions.isEmpty ? "# ✅ Counters: no regression" : "# ❌ Counters: \(regressions.count) regression(s)",
            "",
            "Baseline `\(baseline)`, current `\(current)`: counted runs (`run --count`), judged on what no machine "
                + "changes. Bands: instructions per operation ×\(ratio(bands.cellInstructions)) a cell, "
                + "×\(ratio(bands.storeInstructions)) a store's cells together and every cell together; "
                + String(format: "%.2f", bands.allocationsPerOperation) + " allocations per operation; write "
                + "calls and bytes written per operation ×\(ratio(bands.writes)); flushes, bytes on disk and "
                + "digests exactly.",
            "",
        ]
        if !regressions.isEmpty {
            out += ["## Regressions", ""] + regressions.map { "- \($0)" } + [""]
        }
        out += ["## Instructions by store", "", "| store | cells | instructions | verdict |", "|---|--:|--:|---|"]
        for summary in comparison.stores + (comparison.overall.map { [$0] } ?? []) {
            out.append(
                "| \(summary.name) | \(summary.cells) | ×\(ratio(summary.instructionRatio)) | "
                    + "\(mark(summary.verdict)) |")
        }
        out += ["", "## Cells", "", "| store | workload | scale | counter | baseline | current | ratio | verdict |"]
        out.append("|---|---|---|---|--:|--:|--:|---|")
        for cell in comparison.cells {
            for change in cell.changes {
                out.append(
                    "| \(cell.store) | \(cell.workload) | \(cell.scale) | \(change.metric) | \(change.baseline) | "
                        + "\(change.current) | \(change.ratio.map { "×" + ratio($0) } ?? "—") | "
                        + "\(mark(change.verdict)) |")
            }
        }
        if !comparison.notCompared.isEmpty {
            out += ["", "Not compared:", ""] + comparison.notCompared.map { "- \($0)" }
        }
        return out.joined(separator: "\n") + "\n"
    }

    /// A ratio to three decimals: counters move by tenths of a percent.
    package static func ratio(_ value: Double) -> String { String(format: "%.3f", value) }

    static func mark(_ verdict: Verdict) -> String {
        switch verdict {
        case .better: "better"
        case .same: "same"
        case .worse: "**worse**"
        }
    }
}
