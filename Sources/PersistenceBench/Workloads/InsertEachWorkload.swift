/// `insert-each`: adds min(N, 10,000) items to a store of N, each in its own durable commit; under a time box
/// (`--time-box`), the first of them, as many as the group's count (`TimeBox`).
package struct InsertEachWorkload: ItemWorkload {
    package init() {}
    package let name = "insert-each"
    package let summary = "add min(N, 10k) items to a store of N, one durable (fsynced) commit each"
    package var fixture: Fixture? { .items }
    /// A save per user action: within a frame, as a save on the main thread must be.
    package var appBudgets: [AppBudget] {
        [.p99("save p99 ≤ a frame", within: AppBudget.frame, source: AppBudget.frameSource)]
    }

    package func run(on store: any ItemStore, context: WorkloadContext) throws -> WorkloadOutcome {
        let generator = context.items
        let box = context.timeBox.start(steps: min(context.scale, 10_000))
        var done = 0
        while box.allowsMore(after: done) {
            let item = generator.item(id: Int64(context.scale + done + 1))
            try context.stopwatch.measureOperation { try store.insertDurably(item) }
            context.progress.advance(by: 1)
            done += 1
        }
        // What the inserts left is read back after the timed phase and compared with every store's: all did `done`.
        return WorkloadOutcome(operations: done, digest: nil, timeBoxed: box.stoppedEarly(after: done), steps: done)
    }
}
