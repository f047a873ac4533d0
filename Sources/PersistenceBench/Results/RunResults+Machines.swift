import Foundation

/// One machine of a merged run and how fast it was while it ran its shards: the medians of the probes its finished
/// cells timed after their timed phases (`Calibration`), the CPU and memory loop and the durable 4 KiB append.
/// Machines of one class differ (the same loop 1.5× slower on one than another, its fdatasync 3×), so a store's
/// figures at two scales measured on two machines differ by the machines as well as by N.
package struct Machine: Equatable, Sendable {
    /// "boot 2c26fc23" (the first 8 characters of the boot id), or the host's name where no boot id was recorded:
    /// shards run one after another on one boot are one machine.
    package var name: String
    package var cpuModel: String
    package var shards: [Int]
    /// Seconds of one round of the calibration loop and of one durable append: medians over the machine's finished
    /// cells; nil where none timed it (results recorded before the probes were).
    package var cpuProbeSeconds: Double?
    package var syncProbeSeconds: Double?
}

extension RunResults {
    /// The machines of a merged run, in the order of their first shard; empty for a run made in one go.
    package var machines: [Machine] {
        var machines: [Machine] = []
        for part in shards ?? [] {
            let name = Self.machineName(part.environment)
            if let known = machines.firstIndex(where: { $0.name == name }) {
                machines[known].shards.append(part.shard.index)
            } else {
                machines.append(Machine(name: name, cpuModel: part.environment.cpuModel, shards: [part.shard.index]))
            }
        }
        return machines.map { machine in
            var machine = machine
            let metrics = cells.filter { cell in
                cell.status == .ok && cell.shard.map { machine.shards.contains($0) } == true
            }
            .compactMap(\.metrics)
            machine.cpuProbeSeconds = median(metrics.compactMap(\.calibrationSeconds))
            machine.syncProbeSeconds = median(metrics.compactMap(\.syncCalibrationSeconds))
            return machine
        }
    }

    /// The name of the machine that measured `cell` in a merged run (`Machine.name`); nil in a run made in one go.
    package func machineName(of cell: CellResult) -> String? {
        guard let index = cell.shard, let part = shards?.first(where: { $0.shard.index == index }) else { return nil }
        return Self.machineName(part.environment)
    }

    private static func machineName(_ environment: RunEnvironment) -> String {
        environment.bootID.map { "boot \($0.prefix(8))" } ?? environment.hostname
    }
}
