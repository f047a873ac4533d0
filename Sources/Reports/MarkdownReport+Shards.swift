import Foundation
import PersistenceBench

extension MarkdownReport {
    /// The machines of a run merged from shards or resumed on another machine: which machine ran which (workload,
    /// scale) groups, for how long, and how fast each machine was (its cells' probes: `Machine`).
    ///
    /// Empty for a run made on one machine in one go.
    static func machinesSection(_ results: RunResults) -> [String] {
        let machines = results.machines
        guard results.shards != nil || machines.count > 1 else { return [] }
        let intro =
            results.shards.map { "Merged from \($0.count) shards (`run --shard K/N`, joined by `merge`). " }
            ?? "Resumed on another machine (`run --resume`). "
        var out = [
            "## Machines", "",
            intro + "Each (workload, scale) group ran whole on one machine, so every comparison between stores in a "
                + "table is within one machine; a store's figures at different scales, or in different workloads, "
                + "may come from different machines (the Environment above is the first's). The probes are each "
                + "machine's medians over its cells of the fixed loops timed after every timed phase "
                + "(`calibration_seconds`: a CPU and memory loop; `sync_calibration_seconds`: a durable 4 KiB "
                + "append). Running is the sum of the cells' wall times, fixture loads included (`runSeconds`); "
                + "from start to finish also counts the pauses of a run in several sittings (`--resume`).", "",
            "| shard | machine | CPU | CPU probe | fdatasync probe | running | start to finish | groups |",
            "|---|---|---|--:|--:|--:|--:|---|",
        ]
        let parts: [(shard: String, index: Int?, span: TimeInterval?)] =
            results.shards.map {
                $0.map { ("\($0.shard)", $0.shard.index, $0.finishedAt.timeIntervalSince($0.startedAt)) }
            }
            ?? [("–", nil, results.finishedAt.map { $0.timeIntervalSince(results.startedAt) })]
        for part in parts {
            let cells = results.cells.filter { $0.shard == part.index }
            for machine in machines {
                if let index = part.index, !machine.shards.contains(index) { continue }
                let own = cells.filter { results.machineName(of: $0) == machine.name }
                let running = own.compactMap(\.runSeconds)
                let groups = orderedUnique(own.map(\.group)).map(\.description)
                out.append(
                    "| \(part.shard) | \(machine.name) | \(machine.cpuModel), \(machine.cores) cores | "
                        + "\(machine.cpuProbeSeconds.map(Quantity.formatTime) ?? "–") | "
                        + "\(machine.syncProbeSeconds.map(Quantity.formatTime) ?? "–") | "
                        + "\(running.isEmpty ? "–" : Quantity.formatDuration(running.reduce(0, +))) | "
                        + "\(part.span.map(Quantity.formatDuration) ?? "–") | "
                        + (groups.isEmpty ? "–" : groups.joined(separator: ", ")) + " |")
            }
        }
        out.append("")
        if machines.count > 1 {
            let spreads = [("CPU", \Machine.cpuProbeSeconds), ("fdatasync", \Machine.syncProbeSeconds)].compactMap {
                name, probe -> String? in
                let probes = machines.compactMap { $0[keyPath: probe] }
                guard let fastest = probes.min(), let slowest = probes.max(), fastest > 0 else { return nil }
                return "the slowest's \(name) probe \(String(format: "%.2f", slowest / fastest))× the fastest's"
            }
            out += [
                "\(machines.count) machines"
                    + (spreads.isEmpty ? "" : ": " + spreads.joined(separator: ", "))
                    + ". Where a workload's scales ran on different machines, its growth fit and the steps between "
                    + "those scales carry that difference as well as the stores' own (How cost grows with N names "
                    + "them).",
                "",
            ]
        }
        return out
    }
}
