/// `insert-each`: adds min(N, 10,000) items to a store of N, each in its own durable commit.
public struct InsertEachWorkload: ItemWorkload {
    public init() {}
    public let name = "insert-each"
    public let summary = "add min(N, 10k) items to a store of N, one durable (fsynced) commit each"
    public var fixture: Fixture? { .items }

    public func run(on store: any ItemStore, context: WorkloadContext) throws -> WorkloadOutcome {
        let count = min(context.scale, 10_000)
        let generator = context.items
        for id in Int64(context.scale + 1)...Int64(context.scale + count) {
            let item = generator.item(id: id)
            try context.stopwatch.measureOperation { try store.insertDurably(item) }
            context.progress.advance(by: 1)
        }
        return WorkloadOutcome(operations: count, digest: nil)
    }
}
