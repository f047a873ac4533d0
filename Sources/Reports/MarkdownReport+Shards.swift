import Foundation
import PersistenceBench

extension MarkdownReport {
    /// A run merged from shards: which machine ran which (workload, scale) groups, for how long, and how fast each
    /// machine was (its cells' probes: `Machine`). Empty for a run made in one go.
    static func machinesSection(_ results: RunResults) -> [String] {
        guard let shards = results.shards, !shards.isEmpty else { return [] }
        let machines = results.machines
        var out = [
            "## Machines", "",
            "Merged from \(shards.count) shards (`run --shard K/N`, joined by `merge`). Each (workload, scale) group "
                + "ran whole on one machine, so every comparison between stores in a table is within one machine; a "
                + "store's figures at different scales, or in different workloads, may come from different machines "
                + "(the Environment above is shard 1's). The probes are each machine's medians over its cells of "
                + "the fixed loops timed after every timed phase (`calibration_seconds`: a CPU and memory loop; "
                + "`sync_calibration_seconds`: a durable 4 KiB append). Running is the sum of the shard's cells' "
                + "wall times, fixture loads included (`runSeconds`); from start to finish also counts the pauses "
                + "of a shard run in several sittings (`--resume`).", "",
            "| shard | machine | CPU | CPU probe | fdatasync probe | running | start to finish | groups |",
            "|---|---|---|--:|--:|--:|--:|---|",
        ]
        for shard in shards {
            let environment = shard.environment
            let machine = machines.first { $0.shards.contains(shard.shard.index) }
            let running = results.cells.filter { $0.shard == shard.shard.index }.compactMap(\.runSeconds)
            out.append(
                "| \(shard.shard) | \(machine?.name ?? environment.hostname) | \(environment.cpuModel), "
                    + "\(environment.cores) cores | \(machine?.cpuProbeSeconds.map(Quantity.formatTime) ?? "–") | "
                    + "\(machine?.syncProbeSeconds.map(Quantity.formatTime) ?? "–") | "
                    + "\(running.isEmpty ? "–" : Quantity.formatDuration(running.reduce(0, +))) | "
                    + "\(Quantity.formatDuration(shard.finishedAt.timeIntervalSince(shard.startedAt))) | "
                    + shard.groups.map(\.description).joined(separator: ", ") + " |")
        }
        out.append("")
        if machines.count > 1 {
            out += [
                "\(machines.count) machines: "
                    + [("CPU", \Machine.cpuProbeSeconds), ("fdatasync", \Machine.syncProbeSeconds)].compactMap {
                        name, probe in
                        let probes = machines.compactMap { $0[keyPath: probe] }
                        guard let fastest = probes.min(), let slowest = probes.max(), fastest > 0 else { return nil }
                        return "the slowest's \(name) probe \(String(format: "%.2f", slowest / fastest))× the fastest's"
                    }.joined(separator: ", ")
                    + ". Where a workload's scales ran on different machines, its growth fit and the steps between "
                    + "those scales carry that difference as well as the stores' own (How cost grows with N names "
                    + "them).",
                "",
            ]
        }
        return out
    }
}
