/// `write-then-page`: a list a user scrolls while the data changes.
///
/// 100 rounds of: update 1% of the items (title, stock and price, the fields `page` sorts by), then 10 `page` queries.
///
/// A store that maintains its sort order on every write (the SQL and LMDB indexes) pays at the update; one that
/// rebuilds it when a query needs it (`packed`'s order arrays) pays at the first page after each write. Both
/// are inside the timed phase, so maintained and rebuilt indexes are compared on the same work. Every item is
/// updated once over the 100 rounds (a seeded permutation), in transactions of `batchSize`. Operations: items
/// updated plus pages read; latencies per kind (`UPDATE-BATCH`, `PAGE`). Under a time box (`--time-box`), the first
/// rounds, as many as the group's count (`TimeBox`; at least 2); every store's final items are compared too.
package struct WriteThenPageWorkload: ItemWorkload {
    package init() {}
    package let name = "write-then-page"
    package let summary = "100 rounds: update 1% of items (title, stock, price), then 10 pages; index upkeep timed"
    package var fixture: Fixture? { .items }
    package var report: WorkloadReport { WorkloadReport(operationKinds: [.page, .updateBatch]) }

    package static let rounds = 100
    package static let pagesPerRound = 10
    /// The fewest rounds the clock lets the workload do: 20 pages.
    static let minimumRounds = 2

    package func run(on store: any ItemStore, context: WorkloadContext) throws -> WorkloadOutcome {
        let generator = context.items
        let permutation = SeededPermutation(
            count: context.scale, seed: context.seed, stream: .writeThenPageSelection)
        let perRound = max(1, context.scale / Self.rounds)
        var digest = Digest()
        var operations = 0
        var box = context.timeBox.start(steps: Self.rounds, minimum: Self.minimumRounds)
        var round = 0
        while box.allowsMore(after: round) {
            let start = min(context.scale, round * perRound)
            var position = start
            while position < min(context.scale, start + perRound) {
                let end = min(context.scale, start + perRound, position + context.batchSize)
                let updates = (position..<end).map { generator.update(id: Int64(permutation[$0] + 1)) }
                try context.stopwatch.measureOperation(.updateBatch) { try store.update(updates) }
                operations += updates.count
                context.progress.advance(by: updates.count)
                position = end
            }
            let queries = PageWorkload.queries(
                seed: context.seed, index: 2 + UInt64(round), count: Self.pagesPerRound)
            for query in queries {
                digest.add(try PageWorkload.answer(query, from: store, kind: .page, context: context))
            }
            operations += queries.count
            round += 1
        }
        // The pages' answers, and (after the timed phase) every item as the updates left it.
        return WorkloadOutcome(
            operations: operations, digest: digest, alsoDigestsStore: true,
            timeBoxed: box.stoppedEarly(after: round), steps: round)
    }
}
