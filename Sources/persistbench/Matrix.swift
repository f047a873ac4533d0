import ArgumentParser
import Foundation
import PersistenceBench
import Reports
import StoreCatalog

/// A configuration's store and workload names resolved to this build's kinds, once, for every command that runs
/// or plans it.
struct Matrix {
    var configuration: RunConfiguration
    let stores: [StoreKind]
    let workloads: [any Workload]

    init(configuration: RunConfiguration, stores: [StoreKind], workloads: [any Workload]) {
        self.configuration = configuration
        self.stores = stores
        self.workloads = workloads
    }

    /// The kinds a recorded `configuration` names (a run to resume, a baseline). Throws, naming every name this
    /// build does not have, as bad input of `source` ("the run to resume", "the baseline's matrix").
    init(_ configuration: RunConfiguration, of source: String) throws {
        var unknown: [String] = []
        let stores = configuration.stores.compactMap { name in
            let kind = StoreCatalog.kind(named: name)
            if kind == nil { unknown.append(name) }
            return kind
        }
        let workloads = configuration.workloads.compactMap { name in
            let workload = WorkloadCatalog.workload(named: name)
            if workload == nil { unknown.append(name) }
            return workload
        }
        guard unknown.isEmpty else {
            throw ValidationError("\(source) names what this build does not have: \(unknown.joined(separator: ", "))")
        }
        self.init(configuration: configuration, stores: stores, workloads: workloads)
    }

    /// The run of this matrix, reports written as it goes.
    var session: RunSession { RunSession(configuration: configuration, stores: stores, workloads: workloads) }
}
