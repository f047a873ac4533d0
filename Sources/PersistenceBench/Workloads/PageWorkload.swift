/// `page`: 1,000 pages of 20 items filtered on the priority enum, sorted by the Bool `isInStock`, then title.
public struct PageWorkload: ItemWorkload {
    public init() {}
    public let name = "page"
    public let summary = "1,000 pages of 20: filter on the priority enum, sort by Bool isInStock then title, offset"
    public var fixture: Fixture? { .items }

    public static let queryCount = 1000
    public static let pageSize = 20
    /// Offsets are whole pages among the first 50, as a list a user scrolls.
    public static let pagesDeep = 50

    public func run(on store: any ItemStore, context: WorkloadContext) throws -> WorkloadOutcome {
        let queries = Self.queries(seed: context.seed)
        var digest = Digest()
        for query in queries {
            let page = try context.stopwatch.measureOperation { try store.page(query) }
            var pageDigest = Digest()
            for item in page { pageDigest.add(item) }
            digest.add(pageDigest)
            context.progress.advance(by: 1)
        }
        return WorkloadOutcome(operations: queries.count, digest: digest)
    }

    static func queries(seed: UInt64) -> [ItemPageQuery] {
        var rng = SplitMix64(seed: seed, stream: .queries, index: 0)
        let priorities: [Item.Priority?] = [nil, .low, .medium, .high]
        return (0..<queryCount).map { _ in
            ItemPageQuery(
                priority: priorities[Int(rng.below(4))], limit: pageSize,
                offset: Int(rng.below(UInt64(pagesDeep))) * pageSize)
        }
    }
}
