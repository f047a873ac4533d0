/// `delete`: deletes a seeded 10% of items by id, in transactions of `batchSize`.
public struct DeleteWorkload: ItemWorkload {
    public init() {}
    public let name = "delete"
    public let summary = "delete a seeded 10% of items by id (random order), batched"
    public var fixture: Fixture? { .items }

    public func run(on store: any ItemStore, context: WorkloadContext) throws -> WorkloadOutcome {
        var operations = 0
        try ItemBatches.forEachBatchOfTenPercent(context: context, stream: .deleteSelection) { ids in
            try context.stopwatch.measure { try store.delete(ids: ids) }
            operations += ids.count
            context.progress.advance(by: ids.count)
        }
        return WorkloadOutcome(operations: operations, digest: nil)
    }
}
