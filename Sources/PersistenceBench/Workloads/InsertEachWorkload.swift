/// `insert-each`: adds min(N, 10,000) items to a store of N, each in its own durable commit; under a time box
/// (`--time-box`), as many as the box allows (at least `TimeBox.minimumOperations`), checked against the generator.
public struct InsertEachWorkload: ItemWorkload {
    public init() {}
    public let name = "insert-each"
    public let summary = "add min(N, 10k) items to a store of N, one durable (fsynced) commit each"
    public var fixture: Fixture? { .items }

    public func run(on store: any ItemStore, context: WorkloadContext) throws -> WorkloadOutcome {
        let count = min(context.scale, 10_000)
        let generator = context.items
        let box = context.timeBox.start()
        var done = 0
        while done < count, box.allowsMore(after: done) {
            let item = generator.item(id: Int64(context.scale + done + 1))
            try context.stopwatch.measureOperation { try store.insertDurably(item) }
            context.progress.advance(by: 1)
            done += 1
        }
        guard done < count else { return WorkloadOutcome(operations: count, digest: nil) }
        // Boxed: no other store did exactly these inserts, so check the store against the generator (untimed).
        var next: Int64 = 1
        try store.forEachItem { item in
            guard item == generator.item(id: next) else {
                throw BenchError(
                    "insert-each stopped by its time box after \(done) inserts: the store's item \(item.id) is not "
                        + "item \(next) as generated")
            }
            next += 1
        }
        guard next == Int64(context.scale + done + 1) else {
            throw BenchError(
                "insert-each stopped by its time box after \(done) inserts: the store holds \(next - 1) items, not "
                    + "\(context.scale + done)")
        }
        return WorkloadOutcome(operations: done, digest: nil, timeBoxed: true)
    }
}
