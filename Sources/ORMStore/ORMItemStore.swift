import Foundation
import PersistenceBench
import SQLiteSupport

/// `orm` and `orm+batched`: the workloads done the object-graph way, through `ModelContext`, as a SwiftData or
/// Core Data user writes them. An emulation of their cost structure on Linux, not SwiftData or Core Data.
///
/// Inserts create objects in the context; `orm` saves once at the end of the load, as SwiftData users do,
/// `orm+batched` saves and resets every batch. Reads fetch objects and read their attributes; updates and
/// deletes fetch the objects, change or delete them, and save.
public final class ORMItemStore: MigrationStore, ObjectGraphStore {
    public static let kinds =
        [
            kind(
                "orm",
                summary: "object-graph ORM emulating Core Data/SwiftData over the SQLite C API: context, identity map, "
                    + "faults, row cache, change tracking; one save after a bulk load",
                inclusion: .defaultRun, open: { try ORMItemStore(directory: $0, savesEveryBatch: false) }),
            kind(
                "orm+batched",
                summary: "the same ORM; a bulk load saves and resets the context every batch (Core Data's advice)",
                open: { try ORMItemStore(directory: $0, savesEveryBatch: true) }),
            ORMPrefetchingStore.kind,
            kind(
                "orm+swiftdata",
                summary: "the `orm` emulation plus what SwiftData and Core Data do beyond it: persistent history, "
                    + "upsert of unique attributes, an Observation registrar on every attribute get and set, a didSave "
                    + "notification with the changed identifiers, incremental_vacuum and wal_checkpoint(TRUNCATE) "
                    + "after every save",
                mechanisms: .all, inclusion: .defaultRun,
                open: { try ORMItemStore(directory: $0, savesEveryBatch: false, mechanisms: .all) }),
        ]
        + SwiftDataMechanisms.each.map { mechanism, suffix, summary in
            kind(
                "orm+" + suffix, summary: "the `orm` emulation plus one mechanism: " + summary,
                mechanisms: mechanism, inclusion: .whenNamed,
                open: { try ORMItemStore(directory: $0, savesEveryBatch: false, mechanisms: mechanism) })
        }

    /// Every ORM variant's kind: the same durability, configuration and engine, the configuration naming
    /// `auto_vacuum` where post-save maintenance needs it. `orm` and `orm+swiftdata` are in the default run; variants
    /// with one SwiftData mechanism are measured when named, to say what it adds.
    static func kind(
        _ name: String, summary: String, mechanisms: SwiftDataMechanisms = [],
        inclusion: StoreKind.Inclusion = .variant,
        type: any Store.Type = ORMItemStore.self, open: @escaping @Sendable (URL) throws -> any Store
    ) -> StoreKind {
        let vacuum = mechanisms.contains(.postSaveMaintenance) ? " auto_vacuum=INCREMENTAL" : ""
        return StoreKind(
            name: name, summary: summary, durability: "every save fsynced (WAL, synchronous=FULL)",
            configuration: SQLiteConnection.defaultConfiguration + vacuum + "; a row cache of the rows live objects "
                + "hold",
            engine: { SQLiteConnection.engine }, inclusion: inclusion, type: type, open: open)
    }

    /// The store's model: every record type, as one app's model holds all its entities.
    static func makeModel() throws -> ManagedObjectModel {
        try ManagedObjectModel([
            Item.self, Sport.self, Team.self, House.self, Floor.self, Room.self, Sample.self, CallStack.self,
        ])
    }

    let container: ModelContainer
    let context: ModelContext
    let savesEveryBatch: Bool
    var prefetchesRelationships: Bool { false }
    var profileStacks: ProfileStacks?

    public init(directory: URL, savesEveryBatch: Bool, mechanisms: SwiftDataMechanisms = []) throws {
        container = try ModelContainer(
            model: Self.makeModel(), url: directory.appendingPathComponent("store.sqlite"), mechanisms: mechanisms)
        context = ModelContext(container)
        self.savesEveryBatch = savesEveryBatch
    }

    /// Closes without saving: like a process that ends, it drops what was not saved.
    public func close() throws {
        resetContext()
        try container.close()
    }

    public func settle() throws {
        try container.checkpoint()
    }

    public func insert(_ batch: [PersistenceBench.Item]) throws {
        for item in batch { _ = Item(item, context: context) }
        if savesEveryBatch {
            try context.save()
            resetContext()
        }
    }

    public func finishInserting() throws {
        try context.save()
    }

    public func insertDurably(_ item: PersistenceBench.Item) throws {
        _ = Item(item, context: context)
        try context.save()
    }

    public func item(id: Int64) throws -> PersistenceBench.Item? {
        try Self.item(id: id, in: context)
    }

    /// A fetch of the item with this id, limited to one, its attributes read.
    static func item(id: Int64, in context: ModelContext) throws -> PersistenceBench.Item? {
        try context.fetch(FetchDescriptor<Item>(predicate: Item.id == id, fetchLimit: 1)).first?.value
    }

    /// Fetches every item, as a SwiftData user's `fetch(FetchDescriptor<Item>(sortBy: [SortDescriptor(\.id)]))`:
    /// all objects are in memory at once.
    public func forEachItem(_ body: (PersistenceBench.Item) throws -> Void) throws {
        for object in try context.fetch(FetchDescriptor<Item>(sortBy: [FetchSortDescriptor(Item.id)])) {
            try body(object.value)
        }
    }

    public func count(where filter: ItemFilter) throws -> Int {
        try Self.count(where: filter, in: context)
    }

    static func count(where filter: ItemFilter, in context: ModelContext) throws -> Int {
        try context.fetchCount(
            FetchDescriptor(predicate: predicate(filter.priority) && Item.isInStock == filter.isInStock))
    }

    public func count(pricedIn range: PriceRange) throws -> Int {
        try context.fetchCount(FetchDescriptor(predicate: Item.price >= range.lower && Item.price < range.upper))
    }

    public func page(_ query: ItemPageQuery) throws -> [PersistenceBench.Item] {
        try Self.page(query, in: context)
    }

    static func page(_ query: ItemPageQuery, in context: ModelContext) throws -> [PersistenceBench.Item] {
        let descriptor = FetchDescriptor<Item>(
            predicate: predicate(query.priority),
            sortBy: [
                FetchSortDescriptor(Item.isInStock), FetchSortDescriptor(Item.title), FetchSortDescriptor(Item.id),
            ],
            fetchLimit: query.limit, fetchOffset: query.offset)
        return try context.fetch(descriptor).map(\.value)
    }

    public func items(startingAt id: Int64, limit: Int) throws -> [PersistenceBench.Item] {
        let descriptor = FetchDescriptor<Item>(
            predicate: Item.id >= id, sortBy: [FetchSortDescriptor(Item.id)], fetchLimit: limit)
        return try context.fetch(descriptor).map(\.value)
    }

    /// Fetches the batch's objects, sets their attributes (in the batch's order, so an id named twice ends with
    /// its last update) and saves.
    public func update(_ updates: [ItemUpdate]) throws {
        let objects = try fetchByID(updates.map(\.id))
        for update in updates {
            guard let object = objects[update.id] else { throw BenchError("orm: no item \(update.id) to update") }
            object.title = update.title
            object.isInStock = update.isInStock
            object.price = update.price
        }
        try context.save()
    }

    public func delete(ids: [Int64]) throws {
        let objects = try fetchByID(ids)
        for id in ids {
            guard let object = objects[id] else { throw BenchError("orm: no item \(id) to delete") }
            context.delete(object)
        }
        try context.save()
    }

    /// The custom stage of a SwiftData migration: every object fetched, the titles seen remembered, the later
    /// duplicates deleted, one save; then the next model version's unique constraint.
    public func migrateToUniqueTitles() throws -> Int {
        var seen = Set<String>()
        var deleted = 0
        for object in try context.fetch(FetchDescriptor<Item>(sortBy: [FetchSortDescriptor(Item.id)]))
        where !seen.insert(object.title).inserted {
            context.delete(object)
            deleted += 1
        }
        try context.save()
        try container.addUniqueConstraint(on: Item.title)
        return deleted
    }

    private func fetchByID(_ ids: [Int64]) throws -> [Int64: Item] {
        let objects = try context.fetch(FetchDescriptor<Item>(predicate: Item.id.isIn(ids)))
        return Dictionary(objects.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    private static func predicate(_ priority: PersistenceBench.Item.Priority?) -> FetchPredicate<Item> {
        Item.priority == priority.map { Int64($0.rawValue) }
    }
}
