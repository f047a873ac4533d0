import ArgumentParser
import PersistenceBench
import StoreCatalog

extension StoreSet: ExpressibleByArgument {}

struct List: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the stores, their variants, and the workloads.")

    @Option(
        help: ArgumentHelp(
            "Print only the names of a set of stores, comma-separated, for a script's --stores.",
            valueName: StoreSet.allCases.map(\.rawValue).joined(separator: "|")))
    var names: StoreSet?

    func run() {
        if let names {
            print(names.stores.map(\.name).joined(separator: ","))
            return
        }
        print("Stores (name, what it is, durability, promise, configuration):")
        let width = (allStores.map(\.name.count).max() ?? 0) + 2
        let indent = String(repeating: " ", count: width + 2)
        for store in allStores {
            let onRequest =
                switch store.inclusion {
                case .defaultRun: ""
                case .variant: " A variant: `run` measures it when named (or `--stores all`); `crash` by default."
                case .whenNamed: " Measured when named (`--stores \(store.name)`)."
                }
            print(
                "  " + store.name.padding(toLength: width, withPad: " ", startingAt: 0) + store.summary + "."
                    + onRequest)
            print(indent + "Durability: \(store.durability).")
            print(indent + "Promise (checked by `persistbench crash`): \(store.promise.summary).")
            print(indent + "Configuration: \(store.configuration).")
        }
        print("Workloads:")
        let workloadWidth = (WorkloadCatalog.all.map(\.name.count).max() ?? 0) + 2
        for workload in WorkloadCatalog.all {
            print("  " + workload.name.padding(toLength: workloadWidth, withPad: " ", startingAt: 0) + workload.summary)
        }
    }
}
