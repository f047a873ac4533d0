import PersistenceBench

/// A name a command was given that this build does not know.
public struct UnknownName: Error, CustomStringConvertible {
    /// "store", "workload".
    public let kind: String
    public let name: String
    public let known: [String]

    public var description: String { "unknown \(kind) '\(name)'; known: \(known.joined(separator: ", "))" }
}

extension StoreCatalog {
    /// The stores a comma-separated list names, in its order, each once: a store's name, or a set's (`StoreSet`:
    /// `all`, `default`, `counted`, …) for its stores. Throws on a name that is neither.
    public static func stores(named list: String) throws -> [StoreKind] {
        var kinds: [StoreKind] = []
        for name in list.split(separator: ",", omittingEmptySubsequences: false).map(String.init) {
            let named: [StoreKind]
            if let kind = kind(named: name) {
                named = [kind]
            } else if let set = StoreSet(rawValue: name) {
                named = set.stores
            } else {
                throw UnknownName(
                    kind: "store", name: name,
                    known: all.map(\.name) + StoreSet.allCases.map { "\($0.rawValue) (a set)" })
            }
            for kind in named where !kinds.contains(where: { $0.name == kind.name }) { kinds.append(kind) }
        }
        return kinds
    }

    /// The workloads a comma-separated list names, in its order, each once.
    public static func workloads(named list: String) throws -> [any Workload] {
        var workloads: [any Workload] = []
        for name in list.split(separator: ",", omittingEmptySubsequences: false).map(String.init) {
            guard let workload = WorkloadCatalog.workload(named: name) else {
                throw UnknownName(kind: "workload", name: name, known: WorkloadCatalog.all.map(\.name))
            }
            if !workloads.contains(where: { $0.name == name }) { workloads.append(workload) }
        }
        return workloads
    }
}
