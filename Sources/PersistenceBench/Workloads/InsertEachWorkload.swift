/// `insert-each`: adds min(N, 10,000) items to a store of N, each in its own durable commit; under a time box
/// (`--time-box`), the first of them, as many as the group's count (`TimeBox`).
package struct InsertEachWorkload: ItemWorkload {
    package init() {}
    package let name = "insert-each"
    package let summary = "add min(N, 10k) items to a store of N, one durable (fsynced) commit each"
    package var fixture: Fixture? { .items }
    /// A save per user action: within a frame, as a save on the main thread must be.
    package var report: WorkloadReport {
        WorkloadReport(appBudgets: [.p99("save p99 ≤ a frame", within: AppBudget.frame, source: AppBudget.frameSource)])
    }

    package func run(on store: any ItemStore, context: WorkloadContext) throws -> WorkloadOutcome {
        let generator = context.items
        var box = context.timeBox.start(steps: min(context.scale, 10_000))
        var done = 0
        while box.allowsMore(after: done) {
            let item = generator.item(id: Int64(context.scale + done + 1))
            try context.stopwatch.measureOperation { try store.insertDurably(item) }
            context.progress.advance(by: 1)
            done += 1
        }
        // What the inserts left is read back after the timed phase and compared with every store's that did `done`;
        // its first `box.minimum` with every store's (`prefixDigestAfterRun`).
        return WorkloadOutcome(
            operations: done, digest: nil, timeBoxed: box.stoppedEarly(after: done), steps: done,
            prefix: context.timeBox.floor == nil ? nil : DigestPrefix(steps: box.minimum, digest: nil),
            stoppedShort: box.stoppedShort(after: done))
    }

    /// The items a store of `scale` held after its first `steps` durable inserts: every item with an id up to
    /// `scale + steps`, in id order.
    package func prefixDigestAfterRun(of store: any Store, scale: Int, steps: Int) throws -> Digest? {
        var digest = Digest()
        let last = Int64(scale + steps)
        try requireCapability(store, (any ItemStore).self, for: "workload \(name)").forEachItem { item in
            if item.id <= last { digest.add(item) }
        }
        return digest
    }
}
