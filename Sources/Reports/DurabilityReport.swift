import Foundation
import PersistenceBench

/// crash.md: what each store promises, and what the kills, power-loss crash states and faults found.
package enum DurabilityReport {
    package static func render(_ results: CrashResults) -> String {
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
        let sequences = results.summaries.filter { $0.check == .twoCrashes }
        if !sequences.isEmpty {
            lines += [
                "", "## Two crashes in a row", "",
                "Each *two-crashes* trial starts from a power-loss state (a quarter of them of a store being "
                    + "created), reopens it in a successor that runs the store's recovery and commits a seeded "
                    + "1–\(results.transactions) further transactions, and cuts again: by power loss during the "
                    + "successor's open (where a recovery writes), by power loss after it, or by a kill. The state is "
                    + "checked against the transactions the first reopen found, then the successor's: nothing the "
                    + "first crash discarded may come back, and nothing the successor did not commit may show.", "",
                "| store | first cuts | second cuts | during the open | after it | kills | broken |",
                "|---|---:|---:|---:|---:|---:|---:|",
            ]
            for summary in sequences {
                let during = summary.recoveryCuts ?? 0
                let kills = summary.killCuts ?? 0
                lines.append(
                    "| \(summary.store) | \(summary.firstStates ?? 0) | \(summary.trials) | \(during) | "
                        + "\(summary.trials - during - kills) | \(kills) | **\(summary.broken)** |")
            }
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
                + "writes after it (4 KiB pages, in call order)" + newFilesSentence(results), "",
        ]
        return lines.joined(separator: "\n")
    }

    /// The rule the states were built under, and how many came from a writer that created its store.
    static func newFilesSentence(_ results: CrashResults) -> String {
        let newStore = results.summaries.filter { $0.check == .powerLoss }.compactMap(\.newStoreStates).reduce(0, +)
        let created =
            newStore > 0
            ? " A quarter of each store's states (\(newStore) in all) are cut from a second writer that creates the "
                + "store in an empty directory and commits as many transactions: states of a store being created."
            : ""
        switch results.newFiles {
        case .posix?:
            return ". New names under POSIX's rule: a created file or directory, or a rename, survives only once "
                + "its directory was flushed." + created
        case .ext4?:
            return ". New names under ext4's behaviour (`--new-files ext4`): a created file survives once the file or "
                + "its directory was flushed, a created directory once it or its parent was; POSIX promises less."
                + created
        case nil:
            return results.powerLossStates > 0
                ? ". New files under ext4's behaviour (these states were built before the rule was a choice)." : "."
        }
    }

    private static func milliseconds(_ seconds: Double?) -> String {
        seconds.map { String(format: "%.1f ms", $0 * 1000) } ?? ""
    }
}
