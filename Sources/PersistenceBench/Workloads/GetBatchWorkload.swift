/// `get-batch`: `get`'s lookups (the same keys, in the same order), asked `batchSize` at a time with each library's
/// own batch call (`ItemStore.items(ids:)`): one `WHERE id IN (…)` statement for SQLite, GRDB's
/// `fetchAll(db, keys:)`, one fetch with an `IN` predicate for the ORM; LMDB, which has none, looks the keys up in
/// one read transaction.
///
/// Beside `get` it shows what a batch saves a store of its per-call cost (a transaction, a pool checkout, a statement);
/// `get-batch-loop` asks the same batches key by key.
package struct GetBatchWorkload: ItemWorkload {
    package init(keyByKey: Bool = false) {
        self.keyByKey = keyByKey
    }

    /// Each key of a batch looked up alone inside the batch's read transaction (`get-batch-loop`).
    let keyByKey: Bool

    package var name: String { keyByKey ? "get-batch-loop" : "get-batch" }
    package var summary: String {
        keyByKey
            ? "get-batch's batches, each key looked up alone inside one read transaction per batch"
            : "get's min(N, 100k) uniform keys, 100 per call, each call the library's batch lookup"
    }
    package var fixture: Fixture? { .items }

    /// Keys per call.
    package static let batchSize = 100

    /// A step of the time box is one batch; a latency sample is a batch's.
    ///
    /// Both variants ask the same keys in the same batches and digest the same answers, so every store of either is
    /// checked against every other of the same variant.
    package func run(on store: any ItemStore, context: WorkloadContext) throws -> WorkloadOutcome {
        let keys = GetWorkload.keys(scale: context.scale, seed: context.seed, distribution: .uniform)
        let batches = stride(from: 0, to: keys.count, by: Self.batchSize).map {
            Array(keys[$0..<min(keys.count, $0 + Self.batchSize)])
        }
        // A store that answered a batch with too few or too many items has a digest of another count.
        return try keyByKey
            ? context.askInTurn(batches, ask: store.itemsKeyByKey(ids:), fold: Self.fold)
            : context.askInTurn(batches, ask: store.items(ids:), fold: Self.fold)
    }

    private static func fold(_ items: [Item?], into digest: inout Digest) -> Int {
        for item in items { digest.add(answer: item) }
        return items.count
    }
}
