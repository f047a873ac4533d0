/// One workload at one scale: the cells a report compares stores on, whose time box sets one count of steps for
/// all of them, and which a shard takes whole (`Shard`).
///
/// Encoded as `{"workload", "scale"}` in results.json.
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

    /// Its first repetition: the cell whose kept stacks a counted comparison draws.
    package var firstRepetition: CellID { CellID(series: self, repetition: 1) }
}

/// One cell of a run's matrix: a store doing a workload at a scale, once.
///
/// Coded as its four keys (`store`, `workload`, `scale`, `repetition`) beside the cell's own in results.json.
package struct CellID: Codable, Hashable, Sendable, CustomStringConvertible {
    package var series: SeriesID
    /// From 1.
    package var repetition: Int

    package init(store: String, workload: String, scale: Scale, repetition: Int) {
        self.init(series: SeriesID(store: store, workload: workload, scale: scale), repetition: repetition)
    }

    package init(series: SeriesID, repetition: Int) {
        self.series = series
        self.repetition = repetition
    }

    package var store: String { series.store }
    package var workload: String { series.workload }
    package var scale: Scale { series.scale }
    package var group: GroupID { series.group }

    /// "sqlite get 1M rep 2".
    package var description: String { "\(series) rep \(repetition)" }

    /// The name of every file kept for the cell (its folded stacks, flame graphs, a failed child's output), before
    /// its suffix: "sqlite-get-2000-1".
    package var fileName: String { "\(store)-\(workload)-\(scale.records)-\(repetition)" }

    private enum CodingKeys: String, CodingKey {
        case store, workload, scale, repetition
    }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            store: try c.decode(String.self, forKey: .store), workload: try c.decode(String.self, forKey: .workload),
            scale: try c.decode(Scale.self, forKey: .scale), repetition: try c.decode(Int.self, forKey: .repetition))
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(store, forKey: .store)
        try c.encode(workload, forKey: .workload)
        try c.encode(scale, forKey: .scale)
        try c.encode(repetition, forKey: .repetition)
    }
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
