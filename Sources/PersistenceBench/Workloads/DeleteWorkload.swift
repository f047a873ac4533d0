/// `delete`: deletes a seeded 10% of items by id, in transactions of `batchSize`.
package struct DeleteWorkload: ItemWorkload {
    package init() {}
    package let name = "delete"
    package let summary = "delete a seeded 10% of items by id (random order), batched"
    package var fixture: Fixture? { .items }

    package func run(on store: any ItemStore, context: WorkloadContext) throws -> WorkloadOutcome {
        var operations = 0
        try ItemBatches.forEachBatchOfTenPercent(context: context, stream: .deleteSelection) { ids in
            try context.stopwatch.measure { try store.delete(ids: ids) }
            operations += ids.count
            context.progress.advance(by: ids.count)
        }
        return WorkloadOutcome(operations: operations, digest: nil)
    }
}
