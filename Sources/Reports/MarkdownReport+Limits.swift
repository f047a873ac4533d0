import Foundation
import PersistenceBench

// The limits: each store's figures as a fraction of the machine's and of its engine's own floor.
extension MarkdownReport {
    /// Each store measured beside the machine's limits: each workload that declares one (`WorkloadReport.machineLimit`:
    /// `insert` against `limit-write`, `scan` against `limit-scan`) as a fraction of it, in items per second.
    static func limitsSection(_ results: RunResults, stores: [String], scales: [Scale]) -> [String] {
        boundsSection(
            "Against the machine's limits", \.machineLimit, unit: "items/s", results, stores: stores, scales: scales)
    }

    /// Each store measured beside its engine's own floor (`WorkloadReport.engineFloor`: `insert` against
    /// `engine-insert`, `get` against `engine-get`) as a fraction of it.
    static func engineFloorsSection(_ results: RunResults, stores: [String], scales: [Scale]) -> [String] {
        boundsSection(
            "Against each engine's own floor", \.engineFloor, unit: "ops/s", results, stores: stores, scales: scales,
            note: "A floor runs the store's engine through its C API alone, on the same records, keys, index and "
                + "durability, from bytes encoded before the timer; what the store adds is its own layer "
                + "(encoding, decoding, allocation, the library's wrappers). A fraction under 0.8 at 1M is the store's "
                + "to explain.")
    }

    /// A section of the workloads that declare a bound (`bound`): each store's throughput as a fraction of the bound
    /// workload's on the same store, per scale, in `unit`.
    static func boundsSection(
        _ title: String, _ bound: KeyPath<WorkloadReport, MachineLimit?>, unit: String, _ results: RunResults,
        stores: [String], scales: [Scale], note: String? = nil
    ) -> [String] {
        let pairs = WorkloadCatalog.all.compactMap { workload in
            workload.report[keyPath: bound].map { (workload: workload.name, limit: $0) }
        }
        func median(_ store: String, _ workload: String, _ scale: Scale) -> Double? {
            CellSummary(results.cells.filter { $0.workload == workload }, store: store, scale: scale).medianThroughput
        }
        var rows: [String] = []
        for store in stores {
            for scale in scales {
                let fractions = pairs.map { workload, limit -> String in
                    guard let measured = median(store, workload, scale),
                        let floor = median(store, limit.workload.name, scale),
                        floor > 0
                    else { return "–" }
                    return String(format: "%.2f", measured / floor)
                        + " (\(formatCount(measured)) of \(formatCount(floor)) \(unit))"
                }
                if fractions.contains(where: { $0 != "–" }) {
                    rows.append("| `\(store)` | \(scale) | " + fractions.joined(separator: " | ") + " |")
                }
            }
        }
        guard !rows.isEmpty else { return [] }
        let fractions = pairs.map {
            "`\($0.workload)` as a fraction of `\($0.limit.workload.name)` (\($0.limit.description))"
        }
        return ["## \(title)", ""] + (note.map { [$0, ""] } ?? [])
            + table(
                fractions.joined(separator: " and ") + ", medians from this run:",
                header: ["store", "scale"] + pairs.map { "\($0.workload) ÷ \($0.limit.workload.name)" }, rows: rows)
    }
}
