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
    /// `all`, `default`, `counted`, …) for its stores.
    ///
    /// Throws on a name that is neither.
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

    /// The kinds a recorded configuration names (a run to resume, a baseline).
    ///
    /// Throws, naming every name this build does not have, as bad input of `source` ("the run to resume", "the
    /// baseline's matrix").
    package static func kinds(of configuration: RunConfiguration, in source: String) throws -> (
        stores: [StoreKind], workloads: [any Workload]
    ) {
        let stores = configuration.stores.compactMap(kind(named:))
        let workloads = configuration.workloads.compactMap {
            WorkloadCatalog.workload(named: $0, shape: configuration.shape)
        }
        let unknown =
            configuration.stores.filter { name in !stores.contains { $0.name == name } }
            + configuration.workloads.filter { name in !workloads.contains { $0.name == name } }
        guard unknown.isEmpty else {
            throw BadInput("\(source) names what this build does not have: \(unknown.joined(separator: ", "))")
        }
        return (stores, workloads)
    }
}
