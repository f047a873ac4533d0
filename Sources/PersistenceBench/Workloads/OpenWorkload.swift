import Foundation

/// `open`: a store of N items opened cold in a fresh process, then its first query.
///
/// The cell's process is new (every cell's is). Before the timed phase the store's files are flushed and dropped
/// from the page cache (`FileSystem.dropFromPageCache`: `posix_fadvise(DONTNEED)`, which needs no privilege), so
/// the open and the first lookup read from the disk as after a reboot, as far as the kernel lets them. Timed: the
/// store's open (`OPEN`) and one lookup of a seeded key (`FIRST-QUERY`), each its own operation kind.
package struct OpenWorkload: ItemWorkload, OpeningWorkload {
    package init() {}
    package let name = "open"
    package let summary =
        "open a store of N items in a fresh process, its files dropped from the page cache, then one lookup"
    package var fixture: Fixture? { .items }
    /// A cold launch: the store's open and its first query, within Apple's first-frame target and the watchdog's
    /// allowance.
    package var appBudgets: [AppBudget] {
        [
            .timedPhase("cold open + first query ≤ 400 ms", within: AppBudget.launch, source: AppBudget.launchSource),
            .timedPhase("cold open + first query ≤ 20 s", within: AppBudget.watchdog, source: AppBudget.watchdogSource),
        ]
    }
    package var report: WorkloadReport { WorkloadReport(operationKinds: [.open, .firstQuery]) }

    package func run(opening open: () throws -> any Store, at directory: URL, context: WorkloadContext) throws
        -> (outcome: WorkloadOutcome, store: any Store)
    {
        try FileSystem.dropFromPageCache(directory)
        let store = try context.stopwatch.measureOperation(.open) { try open() }
        let first = try run(
            on: requireCapability(store, (any ItemStore).self, for: "workload \(name)"), context: context)
        return (WorkloadOutcome(operations: 1 + first.operations, digest: first.digest), store)
    }

    /// The first query on the opened store: one lookup of a seeded key.
    package func run(on store: any ItemStore, context: WorkloadContext) throws -> WorkloadOutcome {
        var rng = SplitMix64(seed: context.seed, stream: .getKeys, index: 2)
        let id = 1 + Int64(rng.below(UInt64(context.scale)))
        var digest = Digest()
        if let item = try context.stopwatch.measureOperation(.firstQuery, { try store.item(id: id) }) {
            digest.add(item)
        } else {
            digest.add(-1)
        }
        return WorkloadOutcome(operations: 1, digest: digest)
    }
}
