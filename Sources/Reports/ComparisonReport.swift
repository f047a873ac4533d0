import Foundation
import PersistenceBench

/// A comparison of two runs as Markdown: a verdict on top, then what the machine did to each kind of work, each
/// store's time, what regressed, and every cell's changes. Fit for a terminal and for a CI job summary (GitHub
/// renders it).
public enum ComparisonReport {
    public static func render(_ comparison: RunComparison, baseline: String, current: String) -> String {
        let rule = comparison.rule
        var out: [String] = []
        let regressions = comparison.regressions
        out.append(regressions.isEmpty ? "# ✅ No regression" : "# ❌ \(regressions.count) regression(s)")
        out.append("")
        out.append("Baseline `\(baseline)`, current `\(current)`.")
        out.append("")
        out.append(
            "Bands for \(rule.name) (README, \"Regression checks\", gives the runs they come from): a store "
                + "×\(f(rule.storeBand)); CPU-bound cells ×\(f(rule.cpu.cell)), their typical store "
                + "×\(f(rule.cpu.typical)); wait-bound cells ×\(f(rule.io.cell)), their typical store "
                + "×\(f(rule.io.typical)); a workload's typical store ×\(f(rule.workloadBand)); waits per "
                + "operation of a wait-bound cell ×\(f(rule.waitsBand)); peak RSS ×\(f(rule.memoryBand))."
                + " " + regime(rule))
        out.append("")
        if !regressions.isEmpty {
            out.append("## Regressions")
            out.append("")
            for line in regressions { out.append("- \(line)") }
            out.append("")
        }
        out.append("## What the machine did")
        out.append("")
        if comparison.boundsUnmeasured {
            out.append(
                "Neither run measured how long its cells waited (results from before that was recorded): every cell "
                    + "is judged as CPU-bound.")
        } else {
            out.append(
                "Each cell is classed by what bounds it, from its own counters in the baseline (else the current "
                    + "run): wait-bound when it spent at least \(Int(rule.ioWaitShare * 100)) % of its timed "
                    + "seconds off the CPU (in practice in `fdatasync`), else CPU-bound. Its time is divided by the "
                    + "change of the probe that matches, then by its workload's typical store (what the probe "
                    + "missed, and what a noisy minute did to every store's cell of that workload).")
        }
        out.append("")
        out.append(
            "| bound | cells | probe | baseline | current | probe ratio | typical store after it | band | verdict |")
        out.append("|---|--:|---|--:|--:|--:|--:|--:|---|")
        for bound in comparison.bounds {
            let probes = bound.baselineProbe != nil && bound.currentProbe != nil
            out.append(
                "| \(bound.bound.label) | \(bound.cells) | \(bound.bound.probe) | "
                    + "\(bound.baselineProbe.map(seconds) ?? "—") | \(bound.currentProbe.map(seconds) ?? "—") | "
                    + (probes ? "×\(f(bound.probeRatio))" : "missing: ×1") + " | ×\(f(bound.typicalRatio)) | "
                    + "×\(f(bound.band)) | \(mark(bound.verdict)) |")
        }
        out.append("")
        out.append(
            "Each workload's typical store (median over the stores that ran it, after the probe), relative to its "
                + "bound's typical store, band ×\(f(rule.workloadBand)):")
        out.append("")
        out.append("| workload | scale | bound | stores | after the probe | relative to the bound | verdict |")
        out.append("|---|--:|---|--:|--:|--:|---|")
        for workload in comparison.workloads {
            out.append(
                "| \(workload.workload) | \(workload.scale) | \(workload.bound.shortLabel) | "
                    + "\(workload.stores) | ×\(f(workload.typicalRatio)) | ×\(f(workload.relativeRatio)) | "
                    + "\(mark(workload.verdict)) |")
        }
        out.append("")
        out.append("## Time by store")
        out.append("")
        out.append(
            "Time ratio: the geometric mean over the store's cells of current ÷ baseline time per operation, each "
                + "divided by its bound's probe. Relative: each cell also divided by its workload's typical store; "
                + "this is what is judged.")
        out.append("")
        out.append("| store | cells (CPU + wait) | time ratio | relative to typical | band | verdict |")
        out.append("|---|--:|--:|--:|--:|---|")
        for store in comparison.stores {
            out.append(
                "| `\(store.store)` | \(store.cells) (\(store.cpuCells) + \(store.ioCells)) | ×\(f(store.timeRatio)) | "
                    + "×\(f(store.relativeRatio)) | ×\(f(store.band)) | \(mark(store.verdict)) |")
        }
        out.append("")
        out.append("## Cells")
        out.append("")
        out.append(
            "Time: ratio of medians per operation, divided by the probe of the cell's bound and by its workload's "
                + "typical store, judged against the wider of the bound's cell band and the repetitions' spread "
                + "(slowest ÷ fastest) to the power \(f(rule.spreadMultiplier)). Bound: off-CPU share of the timed "
                + "seconds and voluntary context switches per operation. Waits/op (wait-bound cells): band "
                + "×\(f(rule.waitsBand)). Peak RSS: band ×\(f(rule.memoryBand)). "
                + "Bytes on disk and digests: strict.")
        out.append("")
        out.append("| store | workload | scale | metric | bound | baseline | current | ratio | band | verdict |")
        out.append("|---|---|--:|---|---|--:|--:|--:|--:|---|")
        for cell in comparison.cells {
            for change in cell.changes {
                out.append(
                    "| `\(cell.store)` | \(cell.workload) | \(cell.scale) | \(change.metric) | \(bound(change)) | "
                        + "\(change.baseline) | \(change.current) | \(change.ratio.map { "×" + f($0) } ?? "") | "
                        + "\(change.band.map { "×" + f($0) } ?? change.note ?? "strict") | \(mark(change.verdict)) |")
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

    /// `wait 62 % · 2.1/op`, `CPU 3 % · 0/op`, or the bound's name alone where no counters were recorded.
    private static func bound(_ change: RunComparison.Change) -> String {
        guard let bound = change.bound else { return "" }
        let name = bound.shortLabel
        guard let share = change.waitShare else { return name }
        var text = "\(name) \(Int((share * 100).rounded())) %"
        if let waits = change.waitsPerOperation { text += " · " + String(format: "%.2g", waits) + "/op" }
        return text
    }

    /// What the bands mean for the two runs' machines.
    private static func regime(_ rule: ComparisonRule) -> String {
        if rule == .sameMachine {
            return "Both runs come from this boot of one machine: the closest bands."
        } else if rule == .machineClass {
            return "The runs come from different machines of one class (CPU model, cores, memory): bands wide enough "
                + "for how hosts of one class differ; a baseline made on the machine that checks is judged closer."
        } else if rule == .acrossMachineClasses {
            return "The runs' machines differ in CPU model, cores or memory: the widest bands, which catch only gross "
                + "regressions; re-baseline on the machine class that checks."
        }
        return "A rule given by the caller."
    }

    private static func f(_ ratio: Double) -> String { RunComparison.format(ratio) }

    private static func seconds(_ value: Double) -> String {
        value >= 1e-3 ? String(format: "%.2f ms", value * 1e3) : String(format: "%.0f µs", value * 1e6)
    }

    private static func mark(_ verdict: Verdict) -> String {
        switch verdict {
        case .better: "better"
        case .same: "same"
        case .worse: "**worse**"
        }
    }
}
