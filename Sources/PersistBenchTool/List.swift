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

    @Option(help: "Print one store's description and every workload it reads n/a in, with the protocol each needs.")
    var store: String?

    func validate() throws {
        if let store, StoreCatalog.kind(named: store) == nil {
            throw ValidationError(
                "unknown store '\(store)'; known: \(StoreCatalog.all.map(\.name).joined(separator: ", "))")
        }
    }

    func run() {
        if let names {
            print(names.stores.map(\.name).joined(separator: ","))
        } else if let kind = store.flatMap(StoreCatalog.kind(named:)) {
            print(StoreCatalog.listing(of: kind))
        } else {
            print(StoreCatalog.listing)
        }
    }
}
