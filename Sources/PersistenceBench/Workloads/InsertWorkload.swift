/// `insert`: loads items 1...N into an empty store in transactions of `batchSize`.
package struct InsertWorkload: ItemWorkload {
    package init() {}
    package let name = "insert"
    package let summary = "bulk-load N items into an empty store, one transaction per batch (default 10,000)"
    package var fixture: Fixture? { nil }
    /// What N records cost on disk; against the same bytes appended to one file.
    package var report: WorkloadReport {
        WorkloadReport(
            machineLimit: MachineLimit(
                LimitWriteWorkload(), "the same bytes appended to one file, one fdatasync per batch"),
            engineFloor: MachineLimit(
                EngineInsertWorkload(), "the same records through the engine's C API alone, encoded untimed"),
            bytesOnDisk: true)
    }

    package func run(on store: any ItemStore, context: WorkloadContext) throws -> WorkloadOutcome {
        try ItemBatches.insert(ids: 1...Int64(context.scale), into: store, context: context)
        return WorkloadOutcome(operations: context.scale, digest: nil)
    }
}
