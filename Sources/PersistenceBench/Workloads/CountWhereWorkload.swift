/// `count-where`: counts items matching an indexed predicate (priority and stock), every combination in turn.
///
/// `lmdb` and `packed` answer from counts they maintain (`MaintainedCount.itemsPerFilter`); reports label those
/// cells and keep them out of "best store". `count-range` asks a count no store keeps.
package struct CountWhereWorkload: ItemWorkload {
    package init() {}
    package let name = "count-where"
    package let summary =
        "count items with a given priority (or none) and stock state; 8 combinations, repeated for at least 100 ms"
    package var fixture: Fixture? { .items }
    package var report: WorkloadReport { WorkloadReport(countAsked: .itemsPerFilter) }

    package func run(on store: any ItemStore, context: WorkloadContext) throws -> WorkloadOutcome {
        // The rounds the digest has always covered: many at small scales, at least 4 at any scale.
        let rounds = max(4, min(100, 1_000_000 / max(1, context.scale)))
        let filters = (0..<rounds).flatMap { _ in ItemFilter.all }
        // The eight filters split the N items of the fixture between them: their counts add up to N.
        let (scale, checks) = (context.scale, context.checksAnswers)
        let partition = { (answers: [Int]) in
            guard checks else { return }
            let counted = answers.prefix(ItemFilter.all.count).reduce(0, +)
            guard counted == scale else {
                throw BenchError("count-where: the \(ItemFilter.all.count) filters count \(counted) items of \(scale)")
            }
        }
        return try CountRounds.run(filters, workload: name, context: context, check: partition) {
            try store.count(where: $0)
        }
    }
}

/// `count-range`: counts items in a price range.
///
/// No store keeps an index or a counter on price, so every store looks at every item: the count question answered the
/// same way everywhere.
package struct CountRangeWorkload: ItemWorkload {
    package init() {}
    package let name = "count-range"
    package let summary =
        "count items priced in a range (no index or counter: every store reads every price); "
        + "8 seeded ranges, repeated for at least 100 ms"
    package var fixture: Fixture? { .items }

    package static let rangeCount = 8

    package func run(on store: any ItemStore, context: WorkloadContext) throws -> WorkloadOutcome {
        try CountRounds.run(Self.ranges(seed: context.seed), workload: name, context: context) {
            try store.count(pricedIn: $0)
        }
    }

    /// Ranges of 1–100 % of the generator's prices (0.00–999.99), whole cents at both ends.
    static func ranges(seed: UInt64) -> [PriceRange] {
        var rng = SplitMix64(seed: seed, stream: .queries, index: 1)
        return (0..<rangeCount).map { _ in
            let width = 1_000 + rng.below(99_000)
            let lower = rng.below(100_000 - width + 1)
            return PriceRange(lower: Double(lower) / 100, upper: Double(lower + width) / 100)
        }
    }
}
