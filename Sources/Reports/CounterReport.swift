import Foundation
import PersistenceBench

extension CounterComparison {
    /// Every regression, one line each: cells, stores, every cell together, digests that disagree.
    package var regressions: [String] {
        uncounted + newDeclarations + changes(.worse)
            + digestDisagreements.map { "digests disagree across stores: \($0)" }
    }

    /// Every counter better than the baseline beyond its band, one line each: the ratchet.
    ///
    /// The check fails on them too (unless told they are expected), so that the baseline follows every gain and a later
    /// loss of it shows.
    package var improvements: [String] { changes(.better) }

    private func changes(_ verdict: Verdict) -> [String] {
        var lines: [String] = []
        for cell in cells {
            for change in cell.changes where change.verdict == verdict {
                lines.append(
                    "\(cell.store) \(cell.workload) \(cell.scale): \(change.metric) \(change.baseline) → "
                        + "\(change.current)" + (change.ratio.map { " (×\(CounterReport.ratio($0)))" } ?? ""))
            }
        }
        for summary in stores + (overall.map { [$0] } ?? []) where summary.verdict == verdict {
            lines.append(
                "\(summary.name): instructions ×\(CounterReport.ratio(summary.instructionRatio)) over "
                    + "\(summary.cells) cells (band ×\(CounterReport.ratio(bands.storeInstructions)))")
        }
        return lines
    }
}

/// A counter comparison as Markdown: the verdict, the regressions, instructions by store, then every cell's
/// counters.
///
/// Fit for a terminal and a CI job summary.
package enum CounterReport {
    /// `flameGraphs`: the differential flame graph of each cell that moved, by link.
    package static func render(
        _ comparison: CounterComparison, baseline: String, current: String, betterExpected: Bool = false,
        flameGraphs: [(cell: CellID, link: String)] = []
    ) -> String {
        let bands = comparison.bands
        let regressions = comparison.regressions
        let improvements = comparison.improvements
        let headline =
            !regressions.isEmpty
            ? "# ❌ Counters: \(regressions.count) regression(s)"
            : improvements.isEmpty
                ? "# ✅ Counters: no regression"
                : betterExpected
                    ? "# ✅ Counters: no regression, \(improvements.count) better (expected)"
                    : "# ❌ Counters: \(improvements.count) better than the baseline: remake it"
        var out = [
            headline,
            "",
            "Baseline `\(baseline)`, current `\(current)`: counted runs (`run --count`), judged on what no machine "
                + "changes. Bands: instructions per operation ×\(ratio(bands.cellInstructions)) a cell, "
                + "×\(ratio(bands.storeInstructions)) a store's cells together and every cell together; "
                + String(format: "%.2f", bands.allocationsPerOperation) + " allocations per operation; write "
                + "calls and bytes written per operation ×\(ratio(bands.writes)); flushes, bytes on disk and "
                + "digests exactly; per operation, system calls \(bands.systemCalls.description(unit: "")), minor "
                + "faults \(bands.minorFaults.description(unit: "")), major faults "
                + "\(bands.majorFaults.description(unit: "")), bytes read from storage "
                + "\(bands.bytesReadFromStorage.description(unit: "")), voluntary waits "
                + "\(bands.voluntarySwitches.description(unit: "")); the time system calls waited off the CPU is "
                + "shown, not judged (a time). Where the baseline has \(bands.spreadRepetitions) repetitions of a cell "
                + "or more, system calls, faults, reads and waits must also leave the range they measured, widened "
                + "by " + String(format: "%g", bands.spreadMargin) + " of it each way (instructions and allocations "
                + "never): the note beside a cell says where that range decided.",
            "",
        ]
        if !comparison.schedulingDependent.isEmpty {
            out += ["## Shown, not judged", ""]
            for (store, counters) in comparison.schedulingDependent.sorted(by: { $0.key < $1.key }) {
                for (counter, reason) in counters.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                    out.append("- \(store): \(counter.rawValue), declared scheduling-dependent by the store: \(reason)")
                }
            }
            out.append("")
        }
        if !regressions.isEmpty {
            out += ["## Regressions", ""] + regressions.map { "- \($0)" } + [""]
        }
        if !improvements.isEmpty {
            out +=
                [
                    "## Better than the baseline", "",
                    betterExpected
                        ? "Expected (`--better-expected`): remake the baseline with this build (its matrix counted "
                            + "again, `run --count`; here `make counter-baseline`) so that it keeps the gain."
                        : "A gain beyond the band fails the check, so that the baseline keeps it and a later loss shows: "
                            + "remake the baseline with this build (its matrix counted again, `run --count`; here "
                            + "`make counter-baseline`) and commit it with the reason, or run the check with "
                            + "`--better-expected`.",
                    "",
                ] + improvements.map { "- better: \($0)" } + [""]
        }
        if !flameGraphs.isEmpty {
            out +=
                [
                    "## Where the instructions went", "",
                    "Each cell that moved, as a differential flame graph: this build's instructions per operation by "
                        + "stack, red where a frame grew since the baseline, blue where it shrank (every counted "
                        + "cell's own graph is in flames/).", "",
                ] + flameGraphs.map { "- \($0.cell): [\($0.link)](\($0.link))" } + [""]
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
                        + "\(mark(change.verdict))\(change.note.map { " · " + $0 } ?? "") |")
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
