import Foundation

/// A workload over the `Item` data set: the store must be an `ItemStore`.
protocol ItemWorkload: Workload {
    func run(on store: any ItemStore, context: WorkloadContext) throws -> WorkloadOutcome
}

extension ItemWorkload {
    package var capability: StoreCapability { .items }

    package func run(on store: any Store, context: WorkloadContext) throws -> WorkloadOutcome {
        try run(on: requireCapability(store, (any ItemStore).self, for: "workload \(name)"), context: context)
    }

    /// Every item in id order: proves that inserts, updates and deletes left the same data in every store.
    package func digestAfterRun(of store: any Store) throws -> Digest {
        var digest = Digest()
        try requireCapability(store, (any ItemStore).self, for: "workload \(name)").forEachItem { digest.add($0) }
        return digest
    }
}

/// Shared steps of the item workloads.
enum ItemBatches {
    /// Generates items batch by batch (untimed) and inserts each batch (timed).
    static func insert(ids: ClosedRange<Int64>, into store: any ItemStore, context: WorkloadContext) throws {
        try forEachBatch(of: ids, context: context) { batch in
            try context.stopwatch.measure { try store.insert(batch) }
            context.progress.advance(by: batch.count)
        }
        try context.stopwatch.measure { try store.finishInserting() }
    }

    /// Calls `body` with the items of `ids`, generated `batchSize` at a time: never all at once.
    static func forEachBatch(
        of ids: ClosedRange<Int64>, context: WorkloadContext, _ body: ([Item]) throws -> Void
    ) throws {
        try Batches.forEach(ids, size: context.batchSize) { try body(context.items.items($0)) }
    }

    /// Calls `body` with the bytes a `ByteLayoutStore` keeps for each batch of items 1...scale (untimed), the
    /// input of the limit workloads; or an error naming the workload if the store has no byte layout.
    static func forEachStoredBatch(
        in store: any Store, for workload: String, context: WorkloadContext,
        _ body: (_ bytes: [UInt8], _ items: Int) throws -> Void
    ) throws {
        guard let layout = store as? any ByteLayoutStore else {
            throw BenchError("workload \(workload) needs a store with a byte layout; \(type(of: store)) has none")
        }
        try forEachBatch(of: 1...Int64(context.scale), context: context) { batch in
            try body(layout.storedBytes(of: batch), batch.count)
        }
    }

    /// Calls `body` with the ids that `update` or `delete` touch, `batchSize` at a time: a seeded 10% of
    /// 1...scale, distinct and in random order, generated batch by batch (never all at once).
    static func forEachBatchOfTenPercent(
        context: WorkloadContext, stream: SplitMix64.Stream, _ body: ([Int64]) throws -> Void
    ) throws {
        let total = context.scale / 10
        guard total > 0 else { return }
        let permutation = SeededPermutation(count: context.scale, seed: context.seed, stream: stream)
        var position = 0
        while position < total {
            let end = min(total, position + context.batchSize)
            try body((position..<end).map { Int64(permutation[$0] + 1) })
            position = end
        }
    }
}
