/// What a cell runs with besides its store and its workload, in one value: made from the run's configuration
/// (`RunConfiguration.parameters(scale:box:)`), carried whole by the job to the cell's process (`CellJob`) and
/// exposed by the workload's context (`WorkloadContext.parameters`).
///
/// A new setting for one workload is a case of `WorkloadExtra`, not a field copied through every layer.
public struct CellParameters: Codable, Sendable, Equatable {
    /// The data set's size in records.
    public var scale: Int
    public var seed: UInt64
    /// Records per write transaction for bulk writes (`insert`, `update`, `delete`, fixture loads).
    public var batchSize: Int
    /// How far a loop of steps goes (`--time-box`, and its group's count of steps).
    public var timeBox: TimeBox
    /// The settings only some workloads read, each at most once.
    package var extras: [WorkloadExtra]

    public init(scale: Int, seed: UInt64, batchSize: Int, timeBox: TimeBox = .none) {
        self.init(scale: scale, seed: seed, batchSize: batchSize, timeBox: timeBox, extras: [])
    }

    package init(scale: Int, seed: UInt64, batchSize: Int, timeBox: TimeBox, extras: [WorkloadExtra]) {
        self.scale = scale
        self.seed = seed
        self.batchSize = batchSize
        self.timeBox = timeBox
        self.extras = extras
    }

    /// Reads per second of `read-while-import`'s open-loop reader (`--read-rate`).
    package var readRate: Double {
        for case .readRate(let rate) in extras { return rate }
        return WorkloadContext.defaultReadRate
    }

    /// The shape of the run's records (`--shape`); nil for `Item`.
    package var shape: RecordShape? {
        for case .shape(let shape) in extras { return shape }
        return nil
    }

    /// `get-readers`' levels of reader threads (`--readers`).
    package var readers: [Int] {
        for case .readers(let levels) in extras { return levels }
        return ReadersWorkload.defaultLevels
    }
}

/// A setting that only some workloads read (`CellParameters.extras`).
package enum WorkloadExtra: Codable, Sendable, Equatable {
    /// `read-while-import`'s open-loop reader: reads per second (`--read-rate`).
    case readRate(Double)
    /// `get-readers`' levels of reader threads (`--readers`).
    case readers([Int])
    /// The records' shape where they are not `Item`s (`--shape`).
    case shape(RecordShape)
}

extension RunConfiguration {
    /// The parameters of a cell of this run at `scale`, within `box`.
    package func parameters(scale: Scale, box: TimeBox) -> CellParameters {
        CellParameters(
            scale: scale.records, seed: seed, batchSize: batchSize, timeBox: box,
            extras: (readRate.map { [.readRate($0)] } ?? []) + (readers.map { [.readers($0)] } ?? [])
                + (shape.map { [.shape($0)] } ?? []))
    }
}
