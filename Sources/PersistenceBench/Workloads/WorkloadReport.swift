/// A kind of operation a workload times apart, each into its own latency histogram (`Stopwatch.measureOperation`):
/// YCSB's `READ`, `open`'s `OPEN`.
///
/// Its raw value is the key in results.json's `latencyByOperation`.
public struct OperationKind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }

    /// `open`: opening the store, and the first page after it; in results before 2026-11-28, one lookup after it.
    package static let open = OperationKind(rawValue: "OPEN")
    package static let firstPage = OperationKind(rawValue: "FIRST-PAGE")
    package static let firstQuery = OperationKind(rawValue: "FIRST-QUERY")
    /// YCSB's kinds, as YCSB names them.
    package static let read = OperationKind(rawValue: "READ")
    package static let update = OperationKind(rawValue: "UPDATE")
    package static let insert = OperationKind(rawValue: "INSERT")
    package static let scan = OperationKind(rawValue: "SCAN")
    package static let readModifyWrite = OperationKind(rawValue: "READ-MODIFY-WRITE")
    /// `observe`: from a commit's return to the observer holding its result.
    package static let fresh = OperationKind(rawValue: "FRESH")
    /// `write-then-page`: a batch of updates, and a page read after it.
    package static let updateBatch = OperationKind(rawValue: "UPDATE-BATCH")
    package static let page = OperationKind(rawValue: "PAGE")
}

/// What a workload's part of the report needs besides the throughput, latency and memory tables every workload
/// gets (`Workload.report`): the report renders from this, and names no workload itself.
public struct WorkloadReport: Sendable {
    /// The kinds of operation the workload times apart, in the order its latency table shows them.
    package var operationKinds: [OperationKind]
    /// The machine's limit its throughput is held against in the report's "Against the machine's limits".
    package var machineLimit: MachineLimit?
    /// The store's engine's own floor its throughput is held against in the report's "Against each engine's own
    /// floor" (`EngineFloorStore`): `insert` against `engine-insert`.
    package var engineFloor: MachineLimit?
    /// Whether the report gives the bytes on disk its cells left (`insert`: what N records cost on disk).
    package var bytesOnDisk: Bool
    /// True for a workload that times the machine rather than the store (`limit-write`, `limit-scan`, the engine
    /// floors): a comparison of two runs reports its time but judges no store by it.
    package var measuresMachine: Bool
    /// The count question the workload times, for workloads that ask one: a store that answers it from a
    /// maintained count (`Store.maintainedCounts`) has its cell labelled so.
    package var countAsked: MaintainedCount?
    /// True for a question a user waits for at every input (a keystroke: `search`), each operation timed alone:
    /// reports judge its latency against a frame at 60 Hz and 100 ms (`LatencySummary.frameNanoseconds`,
    /// `lateNanoseconds`) and name, per store, the largest scale whose p99 stays within each.
    package var judgedAgainstBudgets: Bool
    /// The limits of an app its cells are judged against in the report's budget table; a workload with any does at
    /// least `TimeBox.budgetSamples` steps under a time box.
    package var appBudgets: [AppBudget]

    package init(
        operationKinds: [OperationKind] = [], machineLimit: MachineLimit? = nil,
        engineFloor: MachineLimit? = nil, bytesOnDisk: Bool = false, measuresMachine: Bool = false,
        countAsked: MaintainedCount? = nil, judgedAgainstBudgets: Bool = false, appBudgets: [AppBudget] = []
    ) {
        self.measuresMachine = measuresMachine
        self.countAsked = countAsked
        self.judgedAgainstBudgets = judgedAgainstBudgets
        self.appBudgets = appBudgets
        self.engineFloor = engineFloor
        self.operationKinds = operationKinds
        self.machineLimit = machineLimit
        self.bytesOnDisk = bytesOnDisk
    }
}

/// A limit a workload's throughput is held against: the machine's (`insert` against `limit-write`), or the
/// store's engine's own floor (`insert` against `engine-insert`).
public struct MachineLimit: Sendable {
    /// The workload that measures the limit (`Workload.measuresMachine`).
    package var workload: any Workload
    /// What the limit does, for the report: "the same bytes appended to one file, one fdatasync per batch".
    package var description: String

    package init(_ workload: any Workload, _ description: String) {
        self.workload = workload
        self.description = description
    }
}
