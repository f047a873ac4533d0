/// `get-batch`: `get`'s lookups (the same keys, in the same order), asked `batchSize` at a time, each batch one
/// read in the store's idiom (`ItemStore.items(ids:)`): one transaction for SQLite, one `read {}` for GRDB, one
/// read transaction for LMDB, one fetch for the ORM. Its digest is `get`'s, so the two are checked against each
/// other; beside `get` it shows what a store's per-call cost (a transaction, a pool checkout) is of a lookup.
package struct GetBatchWorkload: ItemWorkload {
    package init() {}
    package let name = "get-batch"
    package let summary = "get's min(N, 100k) uniform keys, 100 per call, each call one read in the store's idiom"
    package var fixture: Fixture? { .items }

    /// Keys per call.
    package static let batchSize = 100

    /// A step of the time box is one batch; a latency sample is a batch's.
    package func run(on store: any ItemStore, context: WorkloadContext) throws -> WorkloadOutcome {
        let keys = GetWorkload.keys(scale: context.scale, seed: context.seed, distribution: .uniform)
        let batches = stride(from: 0, to: keys.count, by: Self.batchSize).map {
            Array(keys[$0..<min(keys.count, $0 + Self.batchSize)])
        }
        // A store that answered a batch with too few or too many items has a digest of another count than get's.
        return try context.askInTurn(batches, ask: store.items(ids:)) { items, digest in
            for item in items { digest.add(answer: item) }
            return items.count
        }
    }
}
