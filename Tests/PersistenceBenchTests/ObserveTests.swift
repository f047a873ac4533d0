import Foundation
import Testing

@testable import PersistenceBench

/// `observe` and `observe-burst`: the plan's expected results, and what every store's observer delivers.
@Suite struct ObserveTests {
    /// The results the plan expects are what a store's own `page` and `count(where:)` answer after each of its
    /// commits, applied one by one with nobody observing; about half the commits change the result.
    @Test func thePlansResultsAreTheQueryAfterEachCommit() throws {
        let directory = try TemporaryDirectory()
        let store = try openItemStore(try storeKind("sqlite"), at: directory.url)
        guard let observable = store as? any ObservableItemStore else { throw BenchError("sqlite is not observable") }
        let scale = 400
        try load(ItemGenerator(seed: 42).items(1...Int64(scale)), into: store)
        let plan = ObservedPlan(scale: scale, seed: 42, query: ObserveWorkload.query, commits: 200)
        #expect(try ObservedResult.query(ObserveWorkload.query, in: store) == plan.initial)
        for (index, step) in plan.steps.enumerated() {
            try step.change.apply(to: observable)
            #expect(
                try ObservedResult.query(ObserveWorkload.query, in: store) == step.expected, "after commit \(index)")
        }
        let changing = plan.steps.count { $0.changesResult }
        #expect(changing > 60 && changing < 140, "about half the commits change the page or the count: \(changing)")
        try store.close()
    }

    /// The paced cell's digest from the first observable store (`sqlite`), run once for the suite: every store's
    /// must equal it.
    ///
    /// `StoreConformanceTests.everyStoreGivesTheSameDigests` leaves `observe` to this test, so each store's 1,000
    /// observed commits run once, not twice.
    static let reference = Result<Digest, any Error> {
        let directory = try TemporaryDirectory()
        guard let first = observableStoreNames.first else { throw BenchError("no store can be observed") }
        let kind = try storeKind(first)
        return try measureCell(ObserveWorkload(paced: true), on: kind, in: directory.url, scale: 600).digest
    }

    /// Paced: every store's digest is the reference's (the observer delivered each expected result, in order), every
    /// commit that changed the result was waited for (one `FRESH` latency each), every notice was answered, and every
    /// store's observer cost some CPU besides the writer's.
    @Test(arguments: observableStoreNames)
    func theObserverDeliversEveryChangedResult(store name: String) throws {
        let directory = try TemporaryDirectory()
        let kind = try storeKind(name)
        let metrics = try measureCell(ObserveWorkload(paced: true), on: kind, in: directory.url, scale: 600)
        #expect(metrics.digest == (try Self.reference.get()), "\(name) disagrees with the reference on observe")
        let observed = try #require(metrics.figures?.observe)
        #expect(observed.commits == ObserveWorkload.commits)
        #expect(metrics.phase.latencyByOperation?["FRESH"]?.count == observed.commitsChangingResult)
        #expect(observed.deliveries >= observed.commitsChangingResult + 1)
        #expect(observed.notifications >= observed.commitsChangingResult)
        #expect(observed.requeries >= observed.commitsChangingResult)
        #expect(observed.observerCPUSeconds > 0)
    }

    @Test func firstItemsKeepsTheFirstPageInPageOrder() {
        let items = ItemGenerator(seed: 3).items(1...500)
        var page = FirstItems(limit: 20)
        for item in items.reversed() where page.mightTake(isInStock: item.isInStock) { page.offer(item) }
        #expect(page.items == Array(items.sorted(by: ItemPageQuery.areInIncreasingOrder).prefix(20)))
    }
}
