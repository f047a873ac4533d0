/// One workload at one scale: the cells a report compares stores on, whose time box sets one count of steps for
/// all of them, and which a shard takes whole (`Shard`). Encoded as `{"workload", "scale"}` in results.json.
package struct GroupID: Codable, Hashable, Sendable, CustomStringConvertible {
    package var workload: String
    package var scale: Scale

    package init(workload: String, scale: Scale) {
        self.workload = workload
        self.scale = scale
    }

    /// "page 10M".
    package var description: String { "\(workload) \(scale)" }
}

/// One store's cells of a group, over their repetitions: what the comparison of two runs pairs, and the per-cell
/// figures a report takes the median of.
package struct SeriesID: Hashable, Sendable, CustomStringConvertible {
    package var store: String
    package var group: GroupID

    package init(store: String, group: GroupID) {
        self.store = store
        self.group = group
    }

    package init(store: String, workload: String, scale: Scale) {
        self.init(store: store, group: GroupID(workload: workload, scale: scale))
    }

    package var workload: String { group.workload }
    package var scale: Scale { group.scale }

    /// "sqlite get 1M".
    package var description: String { "\(store) \(group)" }
}

/// One cell of a run's matrix: a store doing a workload at a scale, once.
package struct CellID: Hashable, Sendable, CustomStringConvertible {
    package var series: SeriesID
    /// From 1.
    package var repetition: Int

    package init(store: String, workload: String, scale: Scale, repetition: Int) {
        series = SeriesID(store: store, workload: workload, scale: scale)
        self.repetition = repetition
    }

    package var store: String { series.store }
    package var workload: String { series.workload }
    package var scale: Scale { series.scale }
    package var group: GroupID { series.group }

    /// "sqlite get 1M rep 2".
    package var description: String { "\(series) rep \(repetition)" }
}

/// A store's work on one workload at every scale: where the run stops running cells once one ran out of a budget.
package struct StoreWorkload: Hashable, Sendable {
    package var store: String
    package var workload: String

    package init(store: String, workload: String) {
        self.store = store
        self.workload = workload
    }
}

extension CellResult {
    package var id: CellID { CellID(store: store, workload: workload, scale: scale, repetition: repetition) }
    package var series: SeriesID { id.series }
    package var group: GroupID { id.group }

    package init(_ id: CellID, status: Status, reason: String? = nil) {
        self.init(
            store: id.store, workload: id.workload, scale: id.scale, repetition: id.repetition, status: status,
            reason: reason)
    }
}
