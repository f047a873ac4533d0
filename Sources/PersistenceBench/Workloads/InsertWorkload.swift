/// `insert`: loads items 1...N into an empty store in transactions of `batchSize`.
public struct InsertWorkload: ItemWorkload {
    public init() {}
    public let name = "insert"
    public let summary = "bulk-load N items into an empty store, one transaction per batch (default 10,000)"
    public var fixture: Fixture? { nil }
    /// What N records cost on disk; against the same bytes appended to one file.
    public var report: WorkloadReport {
        WorkloadReport(
            machineLimit: MachineLimit(
                LimitWriteWorkload(), "the same bytes appended to one file, one fdatasync per batch"),
            bytesOnDisk: true)
    }

    public func run(on store: any ItemStore, context: WorkloadContext) throws -> WorkloadOutcome {
        try ItemBatches.insert(ids: 1...Int64(context.scale), into: store, context: context)
        return WorkloadOutcome(operations: context.scale, digest: nil)
    }
}
