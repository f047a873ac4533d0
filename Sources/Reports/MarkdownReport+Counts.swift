import Foundation
import PersistenceBench

extension MarkdownReport {
    /// A counted run's (`run --count`) counts per operation, cell by cell, under a warning that its times are
    /// valgrind's: empty for a timed run.
    static func countsSection(_ results: RunResults) -> [String] {
        guard results.configuration.counted == true else { return [] }
        var out = [
            "## Counts per operation",
            "",
            "A counted run: every cell ran under valgrind's callgrind with libOperationCounter, so the times further "
                + "down are the emulator's, not this machine's. The counts are what this run measures, per "
                + "operation: the timed phase and the digest read, of the first repetition.",
            "",
            "| store | workload | scale | operations | instructions | allocations | flushes | write calls | bytes written "
                + "| system calls | minor faults | voluntary waits |",
            "|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
        ]
        for cell in results.cells where cell.repetition == 1 {
            guard let metrics = cell.metrics, let counts = metrics.counts else { continue }
            let operations = Double(max(metrics.phase.operations, 1))
            func per(_ value: UInt64?, _ format: String) -> String {
                value.map { String(format: format, Double($0) / operations) } ?? "—"
            }
            out.append(
                "| \(cell.store) | \(cell.workload) | \(cell.scale) | \(metrics.phase.operations) | "
                    + "\(per(counts.instructions, "%.0f")) | \(per(counts.allocations, "%.2f")) | "
                    + "\(per(counts.syncs, "%.3f")) | \(per(counts.writeCalls, "%.2f")) | "
                    + "\(per(counts.bytesWritten, "%.0f")) | \(per(counts.systemCalls, "%.2f")) | "
                    + "\(per(counts.minorFaults, "%.2f")) | \(per(counts.voluntarySwitches, "%.2f")) |")
        }
        return out + [""]
    }
}
