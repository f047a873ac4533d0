import Foundation
import PersistenceBench
import SQLiteSupport

/// `orm`'s items through the context: objects inserted, fetched, changed or deleted, then saved.
extension ORMItemStore: ItemStore {
    package func insert(_ batch: [Item]) throws {
        for item in batch { _ = Model.Item(item, context: context) }
        if savesEveryBatch {
            try context.save()
            resetContext()
        }
    }

    /// Saves the context (and a record shape's), once after a whole bulk load.
    package func finishInserting() throws {
        try context.save()
        try recordTable?.context.save()
    }

    package func insertDurably(_ item: Item) throws {
        _ = Model.Item(item, context: context)
        try context.save()
    }

    /// One save per commit, then a reset, as a background import saves in chunks (and `orm+batched` saves every
    /// batch of a bulk load).
    package func insertCommitted(_ batch: [Item]) throws {
        for item in batch { _ = Model.Item(item, context: context) }
        try context.save()
        resetContext()
    }

    package func item(id: Int64) throws -> Item? {
        try Self.item(id: id, in: context)
    }

    /// One fetch for the batch, as a SwiftData user writes it (`#Predicate { ids.contains($0.id) }`), its objects
    /// handed back in the order asked.
    package func items(ids: [Int64]) throws -> [Item?] {
        let distinct = Array(Set(ids))
        let fetched = try context.fetch(
            FetchDescriptor<Model.Item>(predicate: Model.Item.id.isIn(distinct)))
        return KeyBatch.inAskedOrder(ids, found: fetched.map(\.value))
    }

    /// A fetch per key, as `item(id:)` fetches it: the loop a user writes without the `IN` predicate.
    package func itemsKeyByKey(ids: [Int64]) throws -> [Item?] {
        try ids.map { try item(id: $0) }
    }

    /// A fetch of the item with this id, limited to one, its attributes read.
    static func item(id: Int64, in context: ModelContext) throws -> Item? {
        try context.fetch(FetchDescriptor<Model.Item>(predicate: Model.Item.id == id, fetchLimit: 1)).first?.value
    }

    /// Fetches every item, as a SwiftData user's `fetch(FetchDescriptor<Model.Item>(sortBy: [SortDescriptor(\.id)]))`:
    /// all objects are in memory at once.
    package func forEachItem(_ body: (Item) throws -> Void) throws {
        for object in try context.fetch(FetchDescriptor<Model.Item>(sortBy: [FetchSortDescriptor(Model.Item.id)])) {
            try body(object.value)
        }
    }

    package func count(where filter: ItemFilter) throws -> Int {
        try Self.count(where: filter, in: context)
    }

    static func count(where filter: ItemFilter, in context: ModelContext) throws -> Int {
        try context.fetchCount(
            FetchDescriptor(predicate: predicate(filter.priority) && Model.Item.isInStock == filter.isInStock))
    }

    package func count(pricedIn range: PriceRange) throws -> Int {
        try context.fetchCount(
            FetchDescriptor(predicate: Model.Item.price >= range.lower && Model.Item.price < range.upper))
    }

    package func page(_ query: ItemPageQuery) throws -> [Item] {
        try Self.page(query, in: context)
    }

    static func page(_ query: ItemPageQuery, in context: ModelContext) throws -> [Item] {
        let descriptor = FetchDescriptor<Model.Item>(
            predicate: predicate(query.priority),
            sortBy: [
                FetchSortDescriptor(Model.Item.isInStock), FetchSortDescriptor(Model.Item.title),
                FetchSortDescriptor(Model.Item.id),
            ],
            fetchLimit: query.limit, fetchOffset: query.offset)
        return try context.fetch(descriptor).map(\.value)
    }

    package func items(startingAt id: Int64, limit: Int) throws -> [Item] {
        let descriptor = FetchDescriptor<Model.Item>(
            predicate: Model.Item.id >= id, sortBy: [FetchSortDescriptor(Model.Item.id)], fetchLimit: limit)
        return try context.fetch(descriptor).map(\.value)
    }

    /// Fetches the batch's objects, sets their attributes (in the batch's order, so an id named twice ends with
    /// its last update) and saves.
    package func update(_ updates: [ItemUpdate]) throws {
        let objects = try fetchByID(updates.map(\.id))
        for update in updates {
            guard let object = objects[update.id] else { throw ORMError.objectNotFound("item \(update.id) to update") }
            object.title = update.title
            object.isInStock = update.isInStock
            object.price = update.price
        }
        try context.save()
    }

    package func delete(ids: [Int64]) throws {
        let objects = try fetchByID(ids)
        for id in ids {
            guard let object = objects[id] else { throw ORMError.objectNotFound("item \(id) to delete") }
            context.delete(object)
        }
        try context.save()
    }

    func fetchByID(_ ids: [Int64]) throws -> [Int64: Model.Item] {
        let objects = try context.fetch(FetchDescriptor<Model.Item>(predicate: Model.Item.id.isIn(ids)))
        return Dictionary(objects.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    static func predicate(_ priority: Item.Priority?) -> FetchPredicate<Model.Item> {
        Model.Item.priority == priority.map { Int64($0.rawValue) }
    }
}
