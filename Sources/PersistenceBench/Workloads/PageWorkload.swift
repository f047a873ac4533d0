/// `page`: 1,000 pages of 20 items filtered on the priority enum, sorted by the Bool `isInStock`, then title; under a
/// time box (`--time-box`), as many as the box allows.
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
        try context.askInTurn(Self.queries(seed: context.seed)) { query, digest in
            digest.add(try Self.answer(query, from: store, context: context))
        }
    }

    /// One page, timed as one operation (of `kind`, if given), and its digest (untimed).
    static func answer(
        _ query: ItemPageQuery, from store: any ItemStore, kind: String? = nil, context: WorkloadContext
    ) throws -> Digest {
        let page =
            try kind.map { kind in try context.stopwatch.measureOperation(kind) { try store.page(query) } }
            ?? context.stopwatch.measureOperation { try store.page(query) }
        var digest = Digest()
        for item in page { digest.add(item) }
        context.progress.advance(by: 1)
        return digest
    }

    /// `count` seeded queries; `index` numbers independent sequences (0 is `page`'s own).
    static func queries(seed: UInt64, index: UInt64 = 0, count: Int = queryCount) -> [ItemPageQuery] {
        var rng = SplitMix64(seed: seed, stream: .queries, index: index)
        let priorities: [Item.Priority?] = [nil, .low, .medium, .high]
        return (0..<count).map { _ in
            ItemPageQuery(
                priority: priorities[Int(rng.below(4))], limit: pageSize,
                offset: Int(rng.below(UInt64(pagesDeep))) * pageSize)
        }
    }
}
