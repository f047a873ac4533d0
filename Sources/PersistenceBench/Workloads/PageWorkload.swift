/// `page`: 1,000 pages of 20 items filtered on the priority enum, sorted by the Bool `isInStock`, then title; under a
/// time box (`--time-box`), the first pages, as many as the group's count (`TimeBox`).
package struct PageWorkload: ItemWorkload {
    package init() {}
    package let name = "page"
    package let summary = "1,000 pages of 20: filter on the priority enum, sort by Bool isInStock then title, offset"
    package var fixture: Fixture? { .items }
    /// A page a list shows as the user scrolls: within a frame.
    package var report: WorkloadReport {
        WorkloadReport(appBudgets: [.p99("page p99 ≤ a frame", within: AppBudget.frame, source: AppBudget.frameSource)])
    }

    package static let queryCount = 1000
    package static let pageSize = 20
    /// Offsets are whole pages among the first 50, as a list a user scrolls.
    package static let pagesDeep = 50

    package func run(on store: any ItemStore, context: WorkloadContext) throws -> WorkloadOutcome {
        try context.askInTurn(Self.queries(seed: context.seed), ask: store.page) { page, digest in
            digest.add(Digest(page))
            return 1
        }
    }

    /// One page, timed as one operation of `kind`, and its digest (untimed).
    static func answer(
        _ query: ItemPageQuery, from store: any ItemStore, kind: OperationKind, context: WorkloadContext
    ) throws -> Digest {
        let page = try context.stopwatch.measureOperation(kind) { try store.page(query) }
        context.progress.advance(by: 1)
        return Digest(page)
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
