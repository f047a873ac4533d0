import Foundation

/// What was asked for: the matrix and its budgets.
public struct RunConfiguration: Codable, Equatable, Sendable {
    package var stores: [String]
    package var workloads: [String]
    package var scales: [Scale]
    package var repetitions: Int
    package var seed: UInt64
    /// Records per write transaction in bulk writes.
    package var batchSize: Int
    /// Wall-clock limit per cell process, seconds.
    package var timeBudgetSeconds: Double
    /// Resident-memory limit per cell process, bytes.
    package var memoryBudgetBytes: Int64
    /// Wall-clock limit of a fixture's load (untimed setup, in a process of its own), seconds; nil in runs made
    /// before it existed, whose loads had the cell's `timeBudgetSeconds`.
    package var fixtureTimeBudgetSeconds: Double?
    package var keepStores: Bool
    /// Reads per second of `read-while-import`'s reader (`--read-rate`); nil in runs made before it existed, which
    /// used the default.
    package var readRate: Double?
    /// `get-readers`' levels of reader threads (`--readers`); nil for the default, and in runs made before it.
    package var readers: [Int]?
    /// The shape of the records (`--shape`); nil for `Item`, the default, and in runs made before shapes.
    package var shape: RecordShape?
    /// The time box of workloads that ask one durable question after another (`--time-box`), seconds; nil for none.
    package var timeBoxSeconds: Double?
    /// The longest a loop judged against an app's budget goes on toward `TimeBox.budgetSamples` steps, and what its
    /// pace is judged against (`--floor-time`, `TimeBox.floor`), seconds; nil in runs made before the floor.
    package var floorSeconds: Double?
    /// True when every cell was counted (`--count`): run under callgrind with libOperationCounter, its time not
    /// worth judging, its `CellMetrics.counts` what is; nil for a timed run.
    package var counted: Bool?
    /// The memory limit each cell's process ran under (`run --memory-limit`: a memory cgroup, page cache included);
    /// nil for none.
    package var memoryLimitBytes: Int64?
    /// The part of the matrix this run ran (`run --shard K/N`); nil for the whole matrix, and in a merged run.
    package var shard: Shard?
    /// Scales above this one run a single repetition (`run --single-repetition-above`: a sweep whose largest scales
    /// cost too much to repeat); nil when every scale runs `repetitions`.
    package var singleRepetitionAbove: Scale?
    /// Where fixtures are kept between runs and the bytes they may take (`run --fixtures`, `FixtureCache`); nil for
    /// fixtures loaded in the run's scratch space and removed when it moves on to another scale, and in runs made
    /// before the cache.
    package var fixtureCache: FixtureCache.Place?

    /// The repetitions of every cell at `scale`.
    package func repetitions(at scale: Scale) -> Int {
        if let singleRepetitionAbove, scale.records > singleRepetitionAbove.records { return 1 }
        return repetitions
    }

    /// "3 per cell", or "3 per cell up to 1M, 1 above".
    package var repetitionsDescription: String {
        guard let singleRepetitionAbove, scales.contains(where: { repetitions(at: $0) != repetitions }) else {
            return "\(repetitions) per cell"
        }
        return "\(repetitions) per cell up to \(singleRepetitionAbove), 1 above"
    }

    package static let defaultRepetitions = 3
    public static let defaultSeed: UInt64 = 42
    public static let defaultBatchSize = 10_000
    /// A cell's wall-clock budget unless told otherwise (`--time-budget 10m`).
    package static let defaultTimeBudgetSeconds = 600.0
    /// A fixture load's, longer than a cell's (`--fixture-time-budget 1h`): a 10M load of grdb takes over 10 minutes
    /// on a 2-core VM, and under the cell's budget its 10M cells would be DNF for their setup, not for their work.
    package static let defaultFixtureTimeBudgetSeconds = 3_600.0
    /// A cell's resident-memory budget unless told otherwise (`--memory-budget 8GiB`).
    package static let defaultMemoryBudgetBytes: Int64 = 8 << 30

    /// A matrix with every other setting at its default, as `run` makes it when given only these.
    package init(
        stores: [String], workloads: [String], scales: [Scale], repetitions: Int, timeBoxSeconds: Double?
    ) {
        self.init(
            stores: stores, workloads: workloads, scales: scales, repetitions: repetitions, seed: Self.defaultSeed,
            batchSize: Self.defaultBatchSize, timeBudgetSeconds: Self.defaultTimeBudgetSeconds,
            memoryBudgetBytes: Self.defaultMemoryBudgetBytes, keepStores: false,
            readRate: WorkloadContext.defaultReadRate,
            timeBoxSeconds: timeBoxSeconds)
        fixtureTimeBudgetSeconds = Self.defaultFixtureTimeBudgetSeconds
        if timeBoxSeconds != nil { floorSeconds = TimeBox.defaultFloorSeconds }
    }

    package init(
        stores: [String], workloads: [String], scales: [Scale], repetitions: Int, seed: UInt64, batchSize: Int,
        timeBudgetSeconds: Double, memoryBudgetBytes: Int64, keepStores: Bool, readRate: Double? = nil,
        timeBoxSeconds: Double? = nil, counted: Bool? = nil, shard: Shard? = nil
    ) {
        self.shard = shard
        self.timeBoxSeconds = timeBoxSeconds
        self.counted = counted
        self.readRate = readRate
        self.stores = stores
        self.workloads = workloads
        self.scales = scales
        self.repetitions = repetitions
        self.seed = seed
        self.batchSize = batchSize
        self.timeBudgetSeconds = timeBudgetSeconds
        self.memoryBudgetBytes = memoryBudgetBytes
        self.keepStores = keepStores
    }
}
