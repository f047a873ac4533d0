import Foundation

/// One machine of a run and how fast it was while it ran its cells: the medians of the probes its finished cells
/// timed after their timed phases (`Calibration`), the CPU and memory loop and the durable 4 KiB append.
///
/// Machines of one class differ (the same loop 1.5× slower on one than another, its fdatasync 3×), so a store's figures
/// at two scales measured on two machines differ by the machines as well as by N.
package struct Machine: Equatable, Sendable {
    /// "boot 2c26fc23" (the first 8 characters of the boot id), or the host's name where no boot id was recorded:
    /// shards run one after another on one boot are one machine.
    package var name: String
    package var cpuModel: String
    package var cores: Int
    /// In a merged run, the shards it ran cells of; empty otherwise.
    package var shards: [Int]
    /// Seconds of one round of the calibration loop and of one durable append: medians over the machine's finished
    /// cells; nil where none timed it (results recorded before the probes were).
    package var cpuProbeSeconds: Double?
    package var syncProbeSeconds: Double?
}

extension RunResults {
    /// Every machine of the run, in the order they joined it: a merged run's shards' (and those each was resumed
    /// on), or the run's own and those it was resumed on.
    package var machines: [Machine] {
        var machines: [Machine] = []
        let parts: [(shard: Int?, environments: [RunEnvironment])] =
            shards.map { $0.map { ($0.shard.index, [$0.environment] + ($0.resumedOn ?? [])) } }
            ?? [(nil, [environment] + (resumedOn ?? []))]
        for (shard, environments) in parts {
            for environment in environments {
                let name = Self.machineName(environment)
                if let known = machines.firstIndex(where: { $0.name == name }) {
                    if let shard, !machines[known].shards.contains(shard) { machines[known].shards.append(shard) }
                } else {
                    machines.append(
                        Machine(
                            name: name, cpuModel: environment.cpuModel, cores: environment.cores,
                            shards: shard.map { [$0] } ?? []))
                }
            }
        }
        let named = cells.filter { $0.status == .ok }.map { (machine: machineName(of: $0), metrics: $0.metrics) }
        return machines.map { machine in
            var machine = machine
            let metrics = named.filter { $0.machine == machine.name }.compactMap(\.metrics)
            machine.cpuProbeSeconds = median(metrics.compactMap(\.phase.calibrationSeconds))
            machine.syncProbeSeconds = median(metrics.compactMap(\.phase.syncCalibrationSeconds))
            return machine
        }
    }

    /// The name of the machine that ran `cell` (`Machine.name`): its own boot where it recorded one, else its
    /// shard's first machine in a merged run, else the run's.
    package func machineName(of cell: CellResult) -> String? {
        if let boot = cell.bootID { return Self.machineName(bootID: boot) }
        guard let shards else { return Self.machineName(environment) }
        guard let index = cell.shard, let part = shards.first(where: { $0.shard.index == index }) else { return nil }
        return Self.machineName(part.environment)
    }

    /// The name of `environment`'s machine (`Machine.name`).
    package static func machineName(_ environment: RunEnvironment) -> String {
        environment.bootID.map { machineName(bootID: $0) } ?? environment.hostname
    }

    private static func machineName(bootID: String) -> String { "boot \(bootID.prefix(8))" }
}
