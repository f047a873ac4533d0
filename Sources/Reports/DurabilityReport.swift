import Foundation
import PersistenceBench

/// crash.md: what each store promises, and what the kills, power-loss crash states and faults found.
public enum DurabilityReport {
    public static func render(_ results: CrashResults) -> String {
        var lines = [
            "# Durability checks", "",
            "`\(results.environment.command)` on \(results.environment.cpuModel) (\(results.environment.cores) cores), "
                + "commit \(results.environment.gitCommit). Each store starts as \(Scale(records: results.scale)) items; a "
                + "writer commits seeded transactions (inserts, updates, deletes of 1–16 items), and each trial "
                + "reopens the store in a fresh process, runs the store's integrity check and compares every item "
                + "with the states after each committed transaction.", "",
            "| store | check | promise | trials | transactions verified | intact | lost (transactions) | torn | "
                + "corrupt | broken | reopen p50 | reopen max | faults reported / absorbed |",
            "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
        ]
        for summary in results.summaries where summary.check != .corruption {
            let faults = summary.faultsReported.map { "\($0) / \(summary.faultsAbsorbed ?? 0)" } ?? ""
            lines.append(
                "| \(summary.store) | \(summary.check.rawValue) | \(summary.promise.summary) | \(summary.trials) | "
                    + "\(summary.transactionsVerified) | \(summary.intact) | \(summary.lost) "
                    + "(\(summary.lostTransactions)) | \(summary.torn) | \(summary.corrupt) | **\(summary.broken)** | "
                    + "\(milliseconds(summary.reopenMedianSeconds)) | \(milliseconds(summary.reopenMaxSeconds)) | "
                    + "\(faults) |")
        }
        let corruptions = results.summaries.filter { $0.check == .corruption }
        if !corruptions.isEmpty {
            lines += [
                "", "## Corrupted files", "",
                "Each case damages a copy of the closed store (a byte XORed with a nonzero value, or a file cut "
                    + "short) and reopens it: *detected* means the open, the integrity check or a read failed with an "
                    + "error; *harmless*, every answer still right; *silently wrong*, answers wrong and no error. "
                    + "Measured, not a promise: these never count as broken.", "",
                "| store | cases | detected | harmless | silently wrong | crashed | hung |",
                "|---|---:|---:|---:|---:|---:|---:|",
            ]
            for summary in corruptions {
                lines.append(
                    "| \(summary.store) | \(summary.trials) | \(summary.corrupt) | \(summary.intact) | "
                        + "\(summary.torn + summary.lost) | \(summary.crashes ?? 0) | \(summary.hangs ?? 0) |")
            }
        }
        let broken = results.summaries.filter { !$0.examples.isEmpty }
        if !broken.isEmpty {
            lines += ["", "## Examples: broken promises, corruptions not detected, faults not reached", ""]
            for summary in broken {
                for example in summary.examples {
                    lines.append("- \(summary.store), \(summary.check.rawValue): \(example)")
                }
            }
        }
        if let notRun = results.notRun, !notRun.isEmpty {
            lines += ["", "## Power-loss and fault checks not run", ""]
            for (store, reason) in notRun.sorted(by: { $0.key < $1.key }) { lines.append("- \(store): \(reason)") }
        }
        if !results.errors.isEmpty {
            lines += ["", "## Not checked", ""]
            for (store, error) in results.errors.sorted(by: { $0.key < $1.key }) {
                lines.append("- \(store): \(error)")
            }
        }
        lines += [
            "",
            "Outcomes: *intact*, the state after the last transaction whose commit returned, or after the one in "
                + "flight; *lost*, an earlier committed state (whole transactions missing, none in part); *torn*, no "
                + "committed state (a transaction partly visible or an item wrong); *corrupt*, the store did not open "
                + "or its integrity check failed. *Broken* counts the trials whose outcome the store's promise does "
                + "not allow. Power-loss states keep what was flushed before the cut and a seeded choice of the "
                + "writes after it (4 KiB pages, in call order).", "",
        ]
        return lines.joined(separator: "\n")
    }

    private static func milliseconds(_ seconds: Double?) -> String {
        seconds.map { String(format: "%.1f ms", $0 * 1000) } ?? ""
    }
}
