import Foundation
import PersistenceBench

/// A comparison in words: the lines that make a run a regression, and the numbers as reports print them.
extension RunComparison {
    /// Everything that makes the current run a regression, one line each; empty when it passes.
    public var regressions: [String] {
        var lines = digestDisagreements.map { "digests disagree across stores: \($0)" }
        for bound in bounds where bound.verdict == .worse {
            lines.append(
                "every store, \(bound.bound.label): the typical store's time ×\(Self.format(bound.typicalRatio)) "
                    + "after the \(bound.bound.probe) (band ×\(Self.format(bound.band)))")
        }
        for workload in workloads where workload.verdict == .worse {
            lines.append(
                "every store's \(workload.workload) \(workload.scale): the typical store's time "
                    + "×\(Self.format(workload.relativeRatio)) relative to other \(workload.bound.rawValue)-bound work "
                    + "(band ×\(Self.format(workload.band)))")
        }
        for store in stores where store.verdict == .worse {
            lines.append(
                "\(store.store): time ×\(Self.format(store.relativeRatio)) relative to its workloads' typical "
                    + "stores, over \(store.cells) cells (band ×\(Self.format(store.band)))")
        }
        for cell in cells {
            for change in cell.changes where change.verdict == .worse {
                var line =
                    "\(cell.store) \(cell.workload) \(cell.scale): \(change.metric) \(change.baseline) → \(change.current)"
                if let ratio = change.ratio, let band = change.band {
                    line += " (×\(Self.format(ratio))"
                    if let bound = change.bound { line += " \(bound.rawValue)-bound" }
                    line += ", band ×\(Self.format(band)))"
                }
                lines.append(line)
            }
        }
        return lines
    }

    package static func format(_ ratio: Double) -> String { String(format: "%.2f", ratio) }
}
