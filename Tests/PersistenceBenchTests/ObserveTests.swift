import Foundation
import Testing

@testable import PersistenceBench

/// The stores whose queries can be observed.

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

    /// Paced: every commit that changed the result was waited for (one `FRESH` latency each), every notice was
    /// answered, and every store's observer cost some CPU besides the writer's.
    @Test(arguments: observableStoreNames)
    func theObserverDeliversEveryChangedResult(store name: String) throws {
        let directory = try TemporaryDirectory()
        let kind = try storeKind(name)
        let metrics = try measureCell(ObserveWorkload(paced: true), on: kind, in: directory.url, scale: 600)
        let observed = try #require(metrics.observe)
        #expect(observed.commits == ObserveWorkload.commits)
        #expect(metrics.latencyByOperation?["FRESH"]?.count == observed.commitsChangingResult)
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
