import Foundation
import PersistenceBench

extension MarkdownReport {
    /// A run merged from shards: which machine ran which (workload, scale) groups, and for how long. Empty for a run
    /// made in one go.
    static func machinesSection(_ results: RunResults) -> [String] {
        guard let shards = results.shards, !shards.isEmpty else { return [] }
        var out = [
            "## Machines", "",
            "Merged from \(shards.count) shards (`run --shard K/N`, joined by `merge`). Each (workload, scale) group "
                + "ran whole on one machine, so every comparison between stores in a table is within one machine; a "
                + "store's figures at different scales, or in different workloads, may come from different machines "
                + "(the Environment above is shard 1's).", "",
            "| shard | host | CPU | boot | wall time | groups |", "|---|---|---|---|--:|---|",
        ]
        for shard in shards {
            let environment = shard.environment
            out.append(
                "| \(shard.shard) | \(environment.hostname) | \(environment.cpuModel), \(environment.cores) cores | "
                    + "\(environment.bootID.map { String($0.prefix(8)) } ?? "?") | "
                    + "\(Quantity.formatDuration(shard.finishedAt.timeIntervalSince(shard.startedAt))) | "
                    + shard.groups.map(\.description).joined(separator: ", ") + " |")
        }
        return out + [""]
    }
}
