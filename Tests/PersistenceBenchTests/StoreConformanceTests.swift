import Foundation
import PersistenceBench
import Testing

/// One suite, every store: each answer is checked against the generator's own data, not only across stores.
@Suite struct StoreConformanceTests {
    let generator = ItemGenerator(seed: 7)

    func expectedItems(_ count: Int) -> [Item] {
        count == 0 ? [] : generator.items(1...Int64(count))
    }

    /// `name` opened in a directory of its own, with the generator's first `count` items loaded when given, handed
    /// to `body` with those items (its to change as it changes the store), and closed after.
    func withStore(
        _ name: String, loading count: Int? = nil, _ body: (any ItemStore, inout [Item]) throws -> Void
    ) throws {
        let directory = try TemporaryDirectory()
        let store = try openItemStore(try storeKind(name), at: directory.url)
        var expected = count.map(expectedItems) ?? []
        if count != nil { try load(expected, into: store) }
        try body(store, &expected)
        try store.close()
    }

    @Test(arguments: itemStoreNames, [0, 1, 1000])
    func insertedItemsReadBackExactly(store name: String, count: Int) throws {
        try withStore(name, loading: count) { (store, expected) throws in
            #expect(try allItems(in: store) == expected)
            for filter in ItemFilter.all {
                #expect(try store.count(where: filter) == expected.filter(filter.matches).count)
            }
            if let last = expected.last { #expect(try store.item(id: last.id) == last) }
            #expect(try store.item(id: Int64(count) + 1) == nil)
        }
    }

    /// A batch of lookups answers in the order asked, a repeated id each time, a missing id with nil, with the
    /// library's batch call and key by key alike; a batch longer than one `IN` statement's keys too.
    @Test(arguments: itemStoreNames)
    func batchLookupsAnswerInTheOrderAsked(store name: String) throws {
        try withStore(name, loading: 50) { (store, expected) throws in
            let short: [Int64] = [7, 3, 51, 7, 50, 1, 0, 3]
            let long = (0..<(KeyBatch.keysPerStatement * 2 + 37)).map { Int64(($0 * 7) % 61) }
            for ids in [short, long] {
                let answers = ids.map { id in expected.first { $0.id == id } }
                #expect(try store.items(ids: ids) == answers)
                #expect(try store.itemsKeyByKey(ids: ids) == answers)
            }
            #expect(try store.items(ids: []).isEmpty)
            #expect(try store.itemsKeyByKey(ids: []).isEmpty)
        }
    }

    @Test(arguments: itemStoreNames)
    func emptyStoreAnswersEmpty(store name: String) throws {
        try withStore(name) { (store, _) throws in
            #expect(try allItems(in: store).isEmpty)
            #expect(try store.item(id: 1) == nil)
            #expect(try store.count(where: ItemFilter(priority: .high, isInStock: true)) == 0)
            #expect(try store.page(ItemPageQuery(priority: nil, limit: 20, offset: 0)).isEmpty)
        }
    }

    @Test(arguments: itemStoreNames)
    func dataSurvivesCloseAndReopen(store name: String) throws {
        let directory = try TemporaryDirectory()
        let kind = try storeKind(name)
        let expected = expectedItems(1000)
        let first = try openItemStore(kind, at: directory.url)
        try first.insert(Array(expected[..<500]))
        try first.insertDurably(expected[500])
        try first.insert(Array(expected[501...]))
        try first.finishInserting()
        try first.close()
        let reopened = try openItemStore(kind, at: directory.url)
        #expect(try allItems(in: reopened) == expected)
        try reopened.close()
        #expect(try kind.type.bytesOnDisk(at: directory.url) > 0)
    }

    @Test(arguments: itemStoreNames)
    func pagesFilterOnTheEnumAndSortByTheBool(store name: String) throws {
        try withStore(name, loading: 1000) { (store, expected) throws in
            for priority in [nil, Item.Priority.low, .medium, .high] {
                let matching = expected.filter { $0.priority == priority }.sorted(
                    by: ItemPageQuery.areInIncreasingOrder)
                for offset in [0, 20, 180, matching.count - 5, matching.count + 10] {
                    let page = try store.page(ItemPageQuery(priority: priority, limit: 20, offset: offset))
                    let want = Array(matching.dropFirst(offset).prefix(20))
                    #expect(page == want, "priority \(String(describing: priority)) offset \(offset)")
                }
            }
        }
    }

    @Test(arguments: itemStoreNames)
    func updatesAndDeletesChangeExactlyTheirRows(store name: String) throws {
        try withStore(name, loading: 1000) { (store, expected) throws in
            let updates = [3, 500, 999, 1].map { generator.update(id: Int64($0)) }
            try store.update(updates)
            for update in updates { update.apply(to: &expected[Int(update.id) - 1]) }
            #expect(try allItems(in: store) == expected)
            // One batch naming an id twice applies both updates, in order, as SQL's UPDATEs do.
            let first = generator.update(id: 600)
            var second = first
            second.title += " again"
            second.isInStock.toggle()
            try store.update([first, second])
            first.apply(to: &expected[599])
            second.apply(to: &expected[599])
            #expect(try allItems(in: store) == expected)
            let deleted: Set<Int64> = [1, 2, 777, 1000]
            try store.delete(ids: Array(deleted))
            expected.removeAll { deleted.contains($0.id) }
            #expect(try allItems(in: store) == expected)
            #expect(try store.item(id: 777) == nil)
        }
    }

    @Test(arguments: itemStoreNames)
    func shortRangeScansReturnIdsFromTheStartInOrder(store name: String) throws {
        try withStore(name, loading: 1000) { (store, expected) throws in
            // Gaps (deleted ids) and an id inserted out of order: the scan follows ids, not insertion order.
            let deleted: Set<Int64> = [1, 2, 500, 501, 502, 1000]
            try store.delete(ids: Array(deleted))
            expected.removeAll { deleted.contains($0.id) }
            let late = generator.items(1001...1001)[0]
            let early = Item(
                id: 500, title: "re-inserted", notes: "", isInStock: true, priority: nil, price: 1,
                createdAt: Date(timeIntervalSince1970: 1_700_000_000))
            try store.insertDurably(late)
            try store.insertDurably(early)
            expected.append(late)
            expected.append(early)
            expected.sort { $0.id < $1.id }
            for (start, limit) in [(1, 5), (499, 4), (500, 1), (995, 100), (1001, 3), (1002, 10), (-5, 2), (250, 100)] {
                let want = Array(expected.filter { $0.id >= Int64(start) }.prefix(limit))
                #expect(try store.items(startingAt: Int64(start), limit: limit) == want, "from \(start), \(limit)")
            }
        }
    }

    /// Every workload, run in-process as a cell child runs it: each store that supports it gives the digest of the
    /// first one that does (`sqlite` for the item workloads).
    ///
    /// `observe` is checked store by store in `ObserveTests.theObserverDeliversEveryChangedResult`, which runs the same
    /// cell.
    @Test(arguments: WorkloadCatalog.all.map(\.name).filter { $0 != "observe" })
    func everyStoreGivesTheSameDigests(workload name: String) throws {
        let workload = try #require(WorkloadCatalog.workload(named: name))
        let supporting = allStoreKinds.filter { workload.applies(to: $0) }
        var digests: [String: Digest] = [:]
        for kind in supporting {
            let directory = try TemporaryDirectory()
            digests[kind.name] = try runCell(workload, kind: kind, scale: 600, directory: directory.url)
        }
        let first = try #require(supporting.first)
        let reference = try #require(digests[first.name])
        #expect(reference.count > 0)
        for (store, digest) in digests { #expect(digest == reference, "\(store) disagrees on \(name)") }
    }

    /// `make bench` runs one store of each strategy; every other store is a variant of one of them, and every variant
    /// is still in `crash`'s default and the package-benchmark suites unless it isolates one mechanism.
    @Test func theDefaultRunHasOneStoreOfEachStrategy() {
        #expect(
            allStoreKinds.filter(\.inDefaultRun).map(\.name)
                == ["sqlite", "grdb", "orm", "orm+swiftdata", "lmdb", "packed", "json", "memory"])
        for kind in allStoreKinds where !kind.inDefaultRun {
            let base = kind.name == "plist" ? "json" : String(kind.name.prefix { $0 != "+" })
            #expect(allStoreKinds.contains { $0.name == base && $0.inDefaultRun }, "\(kind.name)")
            #expect(kind.inDefaultChecks == (kind.inclusion == .variant), "\(kind.name)")
        }
    }

    @Test func differentSeedsGiveDifferentDigests() throws {
        let kind = try storeKind("sqlite")
        let first = try TemporaryDirectory()
        let second = try TemporaryDirectory()
        let scan = ScanWorkload()
        #expect(
            try runCell(scan, kind: kind, scale: 100, seed: 1, directory: first.url)
                != runCell(scan, kind: kind, scale: 100, seed: 2, directory: second.url))
    }

    func runCell(_ workload: any Workload, kind: StoreKind, scale: Int, seed: UInt64 = 42, directory: URL) throws
        -> Digest
    {
        // One level of two readers: what K reader threads ask is checked level by level in `GetReadersTests`.
        let metrics = try measureCell(workload, on: kind, in: directory, scale: scale, seed: seed, readers: [2])
        #expect(metrics.phase.operations > 0)
        #expect(metrics.phase.timedSeconds > 0)
        return metrics.digest
    }
}
