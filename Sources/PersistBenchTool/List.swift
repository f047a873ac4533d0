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
        print(StoreCatalog.listing)
    }
}
