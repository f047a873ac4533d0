import Foundation
import PersistenceBench
import Synchronization
import Testing

/// The bridges for a store over an async or callback library: `ItemFeed`, `AsyncBridge`, `AsyncItemStoreAdapter`.
/// (`sqlite+async`, an actor behind the adapter, is in every conformance suite with the other item stores.)
@Suite struct AsyncStoreTests {
    static let generator = ItemGenerator(seed: 11)

    /// A library's row callback on a thread of its own: every item arrives, in order, and the producer is never
    /// more than the feed's capacity plus the batch being read ahead of the reader.
    @Test func aFeedStreamsFromAnotherThreadWithinItsCapacity() throws {
        let capacity = 16
        let yielded = Shared()
        var read: [Int64] = []
        var mostAhead = 0
        try ItemFeed.stream(
            into: { item in
                read.append(item.id)
                mostAhead = max(mostAhead, yielded.count.load(ordering: .acquiring) - read.count)
            }, capacity: capacity
        ) { feed in
            Thread.detachNewThread {
                for id in Int64(1)...5_000 {
                    guard (try? feed.yield(Self.generator.item(id: id))) != nil else { return }
                    yielded.count.add(1, ordering: .releasing)
                }
                feed.finish()
            }
        }
        #expect(read == Array(1...5_000))
        #expect(mostAhead <= 2 * capacity, "the producer ran \(mostAhead) items ahead of a feed of \(capacity)")
    }

    struct Refused: Error {}

    /// What a producer thread and the test both read.
    final class Shared: Sendable {
        let count = Atomic<Int>(0)
        let stopped = Atomic<Bool>(false)
        let finished = Atomic<Bool>(false)
    }

    /// A body that throws stops the producer (its next `yield` throws) and the stream returns only after the
    /// producer has finished, rethrowing the body's error.
    @Test func aBodyThatThrowsStopsTheProducer() throws {
        let producer = Shared()
        var read = 0
        #expect(throws: Refused.self) {
            try ItemFeed.stream(
                into: { _ in
                    read += 1
                    if read == 5 { throw Refused() }
                }, capacity: 4
            ) { feed in
                Thread.detachNewThread {
                    for id in Int64(1)...1_000 {
                        do { try feed.yield(Self.generator.item(id: id)) } catch {
                            producer.stopped.store(error is ItemFeed.Stopped, ordering: .relaxed)
                            break
                        }
                    }
                    producer.finished.store(true, ordering: .releasing)
                    feed.finish()
                }
            }
        }
        #expect(read == 5)
        let stopped = producer.stopped.load(ordering: .relaxed)
        let finished = producer.finished.load(ordering: .acquiring)
        #expect(stopped, "the producer's yield did not throw Stopped")
        #expect(finished, "the stream returned before the producer finished")
    }

    /// A producer that fails after some items: the reader gets those, then the producer's error.
    @Test func aProducersErrorReachesTheReaderAfterItsItems() throws {
        var read: [Int64] = []
        #expect(throws: Refused.self) {
            try ItemFeed.stream(into: { read.append($0.id) }) { feed in
                Thread.detachNewThread {
                    for id in Int64(1)...3 { try? feed.yield(Self.generator.item(id: id)) }
                    feed.finish(throwing: Refused())
                }
            }
        }
        #expect(read == [1, 2, 3])
    }

    @Test func theBridgeReturnsAnAsyncResultAndRethrowsItsError() throws {
        let answer = try AsyncBridge.wait {
            try await Task.sleep(nanoseconds: 1_000_000)
            return 42
        }
        #expect(answer == 42)
        #expect(throws: Refused.self) { try AsyncBridge.wait { () async throws -> Int in throw Refused() } }
    }

    /// Callers that are themselves the concurrency pool's threads, more of them than the pool has, each waiting on
    /// an actor's answer: the actor runs on the bridge's executor, so none waits for a pool thread another holds.
    ///
    /// Each caller's wait has a minute once it has started (`failingIfHung`), however long it waited for a thread.
    @Test func bridgedCallsFromEveryPoolThreadAtOnceComplete() async throws {
        let store = ActorItems()
        let callers = 4 * ProcessInfo.processInfo.activeProcessorCount
        let answers = try await withThrowingTaskGroup(of: Item?.self) { group in
            for id in Int64(1)...Int64(callers) {
                group.addTask {
                    try failingIfHung("the bridged calls of caller \(id)") {
                        try AsyncBridge.wait { await store.insertDurably(Self.generator.item(id: id)) }
                        return try AsyncBridge.wait { await store.item(id: id) }
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.compactMap { $0?.id }.sorted() == Array(1...Int64(callers)))
    }

    /// A scan whose body scans another async store: each producer has a queue of its own, so the outer one, waiting
    /// on its full feed, does not hold up the inner one.
    @Test func aScanInsideAScanCompletes() throws {
        let kind = StoreKind(
            name: "actor-items", summary: "items in an actor", durability: "none", configuration: "",
            engine: { "none" }, opening: { _ in ActorItems() })
        let temporary = try TemporaryDirectory()
        let outer = try #require(try kind.open(temporary.url) as? any ItemStore)
        let inner = try #require(try kind.open(temporary.url) as? any ItemStore)
        try outer.insert(Self.generator.items(1...3 * Int64(ItemFeed.defaultCapacity)))
        try inner.insert(Self.generator.items(1...2 * Int64(ItemFeed.defaultCapacity)))
        var outerItems = 0
        var innerItems = 0
        try failingIfHung("a scan inside a scan") {
            try outer.forEachItem { item in
                outerItems += 1
                if item.id == 1 { try inner.forEachItem { _ in innerItems += 1 } }
            }
        }
        #expect(outerItems == 3 * ItemFeed.defaultCapacity)
        #expect(innerItems == 2 * ItemFeed.defaultCapacity)
    }

    /// An async store over a plain actor: the adapter gives the answers the actor holds, a scan in id order through
    /// a feed, and an async open that fails throws its error from the kind's open.
    @Test func theAdapterAnswersWhatTheAsyncStoreHolds() throws {
        let kind = StoreKind(
            name: "actor-items", summary: "items in an actor", durability: "none", configuration: "",
            engine: { "none" }, opening: { _ in ActorItems() })
        let temporary = try TemporaryDirectory()
        let store = try #require(try kind.open(temporary.url) as? any ItemStore)
        #expect(kind.type is AsyncItemStoreAdapter<ActorItems>.Type)
        try store.insert(Self.generator.items(1...300))
        try store.delete(ids: [7])
        #expect(try store.item(id: 7) == nil)
        #expect(try store.item(id: 8) == Self.generator.item(id: 8))
        #expect(try store.items(ids: [1, 7, 300]) == [Self.generator.item(id: 1), nil, Self.generator.item(id: 300)])
        var scanned: [Int64] = []
        try store.forEachItem { scanned.append($0.id) }
        #expect(scanned == Array(1...300).filter { $0 != 7 })
        try store.close()

        let failing = StoreKind(
            name: "actor-fails", summary: "", durability: "none", configuration: "", engine: { "none" },
            opening: { _ -> ActorItems in throw Refused() })
        #expect(throws: Refused.self) { _ = try failing.open(temporary.url) }
    }

    /// The smallest async store: items in an actor's dictionary.
    actor ActorItems: AsyncItemStore {
        private var items: [Int64: Item] = [:]

        func insert(_ batch: [Item]) { for item in batch { items[item.id] = item } }
        func insertDurably(_ item: Item) { items[item.id] = item }
        func item(id: Int64) -> Item? { items[id] }
        func forEachItem(into feed: ItemFeed) throws {
            for id in items.keys.sorted() { if let item = items[id] { try feed.yield(item) } }
        }
        func count(where filter: ItemFilter) -> Int { items.values.filter(filter.matches).count }
        func count(pricedIn range: PriceRange) -> Int { items.values.filter { range.contains($0.price) }.count }
        func page(_ query: ItemPageQuery) -> [Item] { [] }
        func items(startingAt id: Int64, limit: Int) -> [Item] {
            Array(items.keys.sorted().filter { $0 >= id }.prefix(limit).compactMap { items[$0] })
        }
        func update(_ updates: [ItemUpdate]) {
            for update in updates {
                guard var item = items[update.id] else { continue }
                update.apply(to: &item)
                items[update.id] = item
            }
        }
        func delete(ids: [Int64]) { for id in ids { items[id] = nil } }
        func close() {}
    }
}
