import PersistenceBench

extension StoreCatalog {
    /// `persistbench list`: every store with what it is, its durability, promise and configuration, and whether a
    /// run measures it unasked; then every workload.
    package static var listing: String {
        var lines: [String] = []
        lines.append("Stores (name, what it is, durability, promise, configuration):")
        let width = (all.map(\.name.count).max() ?? 0) + 2
        let indent = String(repeating: " ", count: width + 2)
        for store in all {
            let onRequest =
                switch store.inclusion {
                case .defaultRun: ""
                case .variant:
                    " A variant: `run` measures it when named (or `--stores all`)"
                        + (store.isCrashChecked ? "; `crash` by default." : ".")
                case .whenNamed: " Measured when named (`--stores \(store.name)`)."
                }
            lines.append(
                "  " + store.name.padding(toLength: width, withPad: " ", startingAt: 0) + store.summary + "."
                    + onRequest)
            lines.append(indent + "Durability: \(store.durability).")
            lines.append(
                indent
                    + (store.isCrashChecked || store.promise == .nothing
                        ? "Promise (checked by `persistbench crash`): " : "Promise (unchecked: no integrity check): ")
                    + "\(store.promise.summary).")
            lines.append(indent + "Configuration: \(store.configuration).")
        }
        lines.append("Workloads:")
        let workloadWidth = (WorkloadCatalog.all.map(\.name.count).max() ?? 0) + 2
        for workload in WorkloadCatalog.all {
            lines.append(
                "  " + workload.name.padding(toLength: workloadWidth, withPad: " ", startingAt: 0) + workload.summary)
        }
        return lines.joined(separator: "\n")
    }

    /// `persistbench list --store NAME`: the store's line of the listing, then every workload it reads "n/a" in,
    /// with the protocol each needs or the reason its setting gives: what a store's author reads to see what the
    /// store does not run, derived from the workloads' capabilities.
    package static func listing(of store: StoreKind) -> String {
        let skipped = WorkloadCatalog.all.compactMap { workload in
            workload.notApplicableReason(for: store).map { (workload.name, $0) }
        }
        let runs = WorkloadCatalog.all.count - skipped.count
        var lines = ["\(store.name): \(store.summary).", "Runs \(runs) of \(WorkloadCatalog.all.count) workloads."]
        if !skipped.isEmpty {
            lines.append("Reads n/a in \(skipped.count):")
            let width = (skipped.map(\.0.count).max() ?? 0) + 2
            for (name, reason) in skipped {
                lines.append("  " + name.padding(toLength: width, withPad: " ", startingAt: 0) + reason)
            }
        }
        return lines.joined(separator: "\n")
    }
}
