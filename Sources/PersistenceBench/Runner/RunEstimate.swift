import Foundation

/// What cells will take, from cells already measured (this run's, or earlier runs'), in the run's wall seconds
/// (`CellResult.runSeconds`: the cell's process, the fixture loads it waited for; its process's wall time alone in
/// results recorded before that). A cell measured at its own scale takes its median;
/// one measured only at other scales, the power law of its (store, workload)'s wall time against N over the largest
/// three scales measured (in proportion to N from a single scale: loading the data grows so); one never measured, the median
/// seconds per record of its workload's cells (else of every cell) times its records. Nil with nothing measured.
package struct RunEstimate: Sendable {
    private struct Key: Hashable {
        var store: String
        var workload: String
    }

    /// Per (store, workload), each scale's wall seconds.
    private var walls: [Key: [Int: [Double]]] = [:]
    private var perRecord: [String: [Double]] = [:]
    private var everyPerRecord: [Double] = []

    package init(measured: [CellResult]) {
        for cell in measured where cell.status != .notApplicable && cell.interrupted != true {
            guard let wall = cell.runSeconds ?? cell.process?.wallSeconds, wall > 0 else { continue }
            walls[Key(store: cell.store, workload: cell.workload), default: [:]][cell.scale.records, default: []]
                .append(wall)
            perRecord[cell.workload, default: []].append(wall / Double(cell.scale.records))
            everyPerRecord.append(wall / Double(cell.scale.records))
        }
    }

    package var isEmpty: Bool { everyPerRecord.isEmpty }

    /// The estimate for one cell, or nil with nothing measured.
    package func seconds(store: String, workload: String, scale: Scale) -> Double? {
        if let byScale = walls[Key(store: store, workload: workload)] {
            if let own = byScale[scale.records], let middle = median(own) { return middle }
            // The largest three scales measured: near a larger one, the cost grows as it did there, not as process
            // start-up hid it at the smallest.
            let nearest = byScale.keys.sorted().suffix(3)
            let samples = nearest.flatMap { records in byScale[records, default: []].map { (x: Double(records), y: $0) }
            }
            if let law = PowerLaw(samples) { return law(Double(scale.records)) }
            if let (records, values) = byScale.first, let middle = median(values) {
                return middle * Double(scale.records) / Double(records)
            }
        }
        guard let rate = median(perRecord[workload] ?? []) ?? median(everyPerRecord) else { return nil }
        return rate * Double(scale.records)
    }

    /// The estimate for every cell of `cells` that its store can run, or nil with nothing measured.
    package func seconds(of cells: some Sequence<PlannedCell>) -> Double? {
        guard !isEmpty else { return nil }
        return cells.reduce(0) { total, cell in
            guard cell.workload.supports(cell.store.type) else { return total }
            return total + (seconds(store: cell.store.name, workload: cell.workload.name, scale: cell.scale) ?? 0)
        }
    }
}
