/// `count-where`: counts items matching an indexed predicate (priority and stock), every combination in turn.
public struct CountWhereWorkload: ItemWorkload {
    public init() {}
    public let name = "count-where"
    public let summary = "count items with a given priority (or none) and stock state; 8 combinations, repeated"
    public var fixture: Fixture? { .items }

    public func run(on store: any ItemStore, context: WorkloadContext) throws -> WorkloadOutcome {
        // Enough rounds that small scales run long enough to time; at least 4 rounds at any scale.
        let rounds = max(4, min(100, 1_000_000 / max(1, context.scale)))
        var digest = Digest()
        for _ in 0..<rounds {
            for filter in ItemFilter.all {
                let count = try context.stopwatch.measureOperation { try store.count(where: filter) }
                digest.add(count)
            }
            context.progress.advance(by: ItemFilter.all.count)
        }
        return WorkloadOutcome(operations: digest.count, digest: digest)
    }
}
