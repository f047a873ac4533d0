import Foundation
import PersistenceBench
import SQLiteSupport

/// `sqlite+async`: `sqlite` behind an actor, called through `AsyncItemStoreAdapter` as a store over an async library
/// is: every call a task waited for by the workload's thread (and run on it, `AsyncBridge`), a scan through an
/// `ItemFeed` filled from a task beside it. Its statements, SQL and transactions are `sqlite`'s; what it adds is the
/// bridge's cost, a lower bound for a library with threads of its own, which its cells set beside `sqlite`'s.
actor SQLiteActorItemStore: AsyncIntegrityCheckingStore {
    /// The synchronous store, reached only on this actor.
    private let store: SQLiteItemStore

    init(directory: URL) throws {
        store = try SQLiteItemStore(directory: directory, tuned: false)
    }

    func insert(_ batch: [Item]) throws { try store.insert(batch) }
    func insertDurably(_ item: Item) throws { try store.insertDurably(item) }
    func item(id: Int64) throws -> Item? { try store.item(id: id) }
    func items(ids: [Int64]) throws -> [Item?] { try store.items(ids: ids) }
    func itemsKeyByKey(ids: [Int64]) throws -> [Item?] { try store.itemsKeyByKey(ids: ids) }
    func forEachItem(into feed: ItemFeed) throws { try store.forEachItem { try feed.yield($0) } }
    func count(where filter: ItemFilter) throws -> Int { try store.count(where: filter) }
    func count(pricedIn range: PriceRange) throws -> Int { try store.count(pricedIn: range) }
    func page(_ query: ItemPageQuery) throws -> [Item] { try store.page(query) }
    func items(startingAt id: Int64, limit: Int) throws -> [Item] { try store.items(startingAt: id, limit: limit) }
    func update(_ updates: [ItemUpdate]) throws { try store.update(updates) }
    func delete(ids: [Int64]) throws { try store.delete(ids: ids) }
    func settle() throws { try store.settle() }
    func close() throws { try store.close() }
    func checkIntegrity() throws { try store.checkIntegrity() }

    static func storeFiles(in directory: URL, kind: String) -> StoreFiles {
        SQLiteItemStore.storeFiles(in: directory, kind: kind)
    }

    static func bytesOnDisk(at directory: URL) throws -> Int64 { try SQLiteItemStore.bytesOnDisk(at: directory) }
}

extension SQLiteItemStore {
    /// `sqlite+async`'s kind (`SQLiteActorItemStore`).
    static let asyncKind = StoreKind(
        name: "sqlite+async",
        summary: "sqlite behind an actor, each call a task waited for through AsyncItemStoreAdapter, as a store over "
            + "an async library is called: the bridge's cost beside sqlite's",
        durability: "every commit fsynced (WAL, synchronous=FULL)",
        configuration: SQLiteConnection.defaultConfiguration + "; calls through AsyncItemStoreAdapter to an actor",
        engine: { SQLiteConnection.engine }, inclusion: .whenNamed,
        opening: { try SQLiteActorItemStore(directory: $0) })
}
