/// `update`: changes title, stock and price of a seeded 10% of items, in transactions of `batchSize`.
package struct UpdateWorkload: ItemWorkload {
    package init() {}
    package let name = "update"
    package let summary = "change title, isInStock and price of a seeded 10% of items (random order), batched"
    package var fixture: Fixture? { .items }

    package func run(on store: any ItemStore, context: WorkloadContext) throws -> WorkloadOutcome {
        let generator = context.items
        var operations = 0
        try ItemBatches.forEachBatchOfTenPercent(context: context, stream: .updateSelection) { ids in
            let updates = ids.map(generator.update(id:))
            try context.stopwatch.measure { try store.update(updates) }
            operations += updates.count
            context.progress.advance(by: updates.count)
        }
        return WorkloadOutcome(operations: operations, digest: nil)
    }
}
