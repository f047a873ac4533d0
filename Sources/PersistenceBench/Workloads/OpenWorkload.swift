import Foundation

/// `open`: a store of N items opened cold in a fresh process, then the first page a launching app shows.
///
/// The cell's process is new (every cell's is). Before the timed phase the store's files are flushed and dropped
/// from the page cache (`FileSystem.dropFromPageCache`: `posix_fadvise(DONTNEED)`, which needs no privilege), so
/// the open and the first page read from the disk as after a reboot, as far as the kernel lets them. Timed: the
/// store's open (`OPEN`) and the first page of the list `page` scrolls, unfiltered (`FIRST-PAGE`: 20 items sorted
/// by `isInStock`, then title), each its own operation kind.
package struct OpenWorkload: ItemWorkload, OpeningWorkload {
    package init() {}
    package let name = "open"
    package let summary =
        "open a store of N items in a fresh process, its files dropped from the page cache, then its first page of 20"
    package var fixture: Fixture? { .items }
    /// A cold launch: the store's open and the first page its list shows, within Apple's first-frame target and the
    /// watchdog's allowance.
    ///
    /// Results recorded before 2026-11-28 timed one lookup after the open (`FIRST-QUERY`) and are judged under that
    /// name; a report shows the columns its cells have figures for.
    private var budgets: [AppBudget] {
        [(OperationKind.firstPage, "first page"), (OperationKind.firstQuery, "first query")].flatMap {
            kind, what in
            [
                (AppBudget.launch, "400 ms", AppBudget.launchSource),
                (AppBudget.watchdog, "20 s", AppBudget.watchdogSource),
            ]
            .map { limit, shown, source in
                AppBudget(name: "cold open + \(what) ≤ \(shown)", limit: limit, source: source) { metrics in
                    metrics.phase.latencyByOperation?[kind.rawValue] == nil ? nil : metrics.phase.timedSeconds
                }
            }
        }
    }
    package var report: WorkloadReport { WorkloadReport(operationKinds: [.open, .firstPage], appBudgets: budgets) }

    package func run(opening kind: StoreKind, at directory: URL, context: WorkloadContext) throws
        -> (outcome: WorkloadOutcome, store: any Store)
    {
        try FileSystem.dropFromPageCache(directory)
        let store = try context.stopwatch.measureOperation(.open) { try kind.open(directory) }
        let first = try run(
            on: requireCapability(store, (any ItemStore).self, for: "workload \(name)"), context: context)
        return (WorkloadOutcome(operations: 1 + first.operations, digest: first.digest), store)
    }

    /// The first page on the opened store: what a list shows at launch, before any filter or scroll.
    package func run(on store: any ItemStore, context: WorkloadContext) throws -> WorkloadOutcome {
        var digest = Digest()
        digest.add(try PageWorkload.answer(Self.firstPage, from: store, kind: .firstPage, context: context))
        return WorkloadOutcome(operations: 1, digest: digest)
    }

    /// `page`'s query with no filter, at the top of the list.
    static let firstPage = ItemPageQuery(priority: nil, limit: PageWorkload.pageSize, offset: 0)
}
