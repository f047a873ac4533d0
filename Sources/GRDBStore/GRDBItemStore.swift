import Foundation
import GRDB
import GRDBSQLite
import PersistenceBench
import Synchronization

/// `grdb`, `grdb+codable` and `grdb+statements`: GRDB 7 used the way its users write it.
///
/// A `DatabasePool` (WAL), a `DatabaseMigrator` for the schema, the query interface for reads. The variants
/// differ in what users write: hand-written record conformances (`grdb`), Codable-derived ones
/// (`grdb+codable`), or writes through cached prepared statements, GRDB's documented fast path for bulk
/// writes (`grdb+statements`, which reads like `grdb`).
public final class GRDBItemStore: MigrationStore {
    public enum Flavor: String, CaseIterable, Sendable {
        case records = "grdb"
        case codable = "grdb+codable"
        case statements = "grdb+statements"
    }

    public static let kinds: [StoreKind] = Flavor.allCases.map { flavor in
        StoreKind(
            name: flavor.rawValue, summary: flavor.summary,
            durability: "every commit fsynced (WAL, synchronous=FULL)",
            engine: { "GRDB 7.10.0 on SQLite \(String(cString: sqlite3_libversion()))" }, type: GRDBItemStore.self,
            open: { try GRDBItemStore(directory: $0, flavor: flavor) })
    }

    let pool: DatabasePool
    /// The profile's distinct stacks by id, loaded by the first profile write (`GRDBGraphStore.swift`).
    var profileStacks: StackInterner?
    private let flavor: Flavor

    public init(directory: URL, flavor: Flavor) throws {
        pool = try DatabasePool(path: directory.appendingPathComponent("store.sqlite").path)
        self.flavor = flavor
        // GRDB sets synchronous=NORMAL on its writer when it enables WAL, after `prepareDatabase` has run, so the
        // setting is changed on the writer itself: FULL makes each commit durable, as in every store here.
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        try Self.migrator.migrate(pool)
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("create item") { db in
            try db.create(table: "item") { t in
                t.primaryKey("id", .integer)
                t.column("title", .text).notNull()
                t.column("notes", .text).notNull()
                t.column("isInStock", .boolean).notNull()
                t.column("priority", .integer)
                t.column("price", .double).notNull()
                t.column("createdAt", .double).notNull()
            }
            try db.create(
                index: "item_on_priority_isInStock_title", on: "item", columns: ["priority", "isInStock", "title"])
        }
        registerGraphMigrations(in: &migrator)
        registerProfileMigration(in: &migrator)
        return migrator
    }

    /// The settings that make a SQLite store comparable to another, read from the writer connection, where
    /// commits happen: `journal_mode=wal synchronous=2`.
    public func pragmaSettings() throws -> String {
        try pool.writeWithoutTransaction { db in
            let journal = try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "?"
            let synchronous = try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1
            return "journal_mode=\(journal) synchronous=\(synchronous)"
        }
    }

    public func close() throws {
        try pool.close()
    }

    /// Checkpoints the WAL and truncates it on the writer connection (`Database.checkpoint(.truncate)`).
    public func settle() throws {
        try pool.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
    }

    public func insert(_ batch: [Item]) throws {
        try pool.write { db in
            for item in batch { try insert(item, in: db) }
        }
    }

    public func insertDurably(_ item: Item) throws {
        try pool.write { db in try insert(item, in: db) }
    }

    private func insert(_ item: Item, in db: Database) throws {
        switch flavor {
        case .records:
            try ItemRecord(item).insert(db)
        case .codable:
            try CodableItemRecord(item).insert(db)
        case .statements:
            let statement = try db.cachedStatement(
                sql:
                    "INSERT INTO item (id, title, notes, isInStock, priority, price, createdAt) VALUES (?, ?, ?, ?, ?, ?, ?)"
            )
            try statement.execute(arguments: [
                item.id, item.title, item.notes, item.isInStock, item.priority?.rawValue, item.price,
                item.createdAt.timeIntervalSince1970,
            ])
        }
    }

    public func item(id: Int64) throws -> Item? {
        try pool.read { db in
            switch flavor {
            case .records, .statements: try ItemRecord.fetchOne(db, key: id)?.item
            case .codable: try CodableItemRecord.fetchOne(db, key: id)?.item
            }
        }
    }

    public func forEachItem(_ body: (Item) throws -> Void) throws {
        try pool.read { db in
            switch flavor {
            case .records, .statements:
                let cursor = try ItemRecord.order(ItemRecord.Columns.id).fetchCursor(db)
                while let record = try cursor.next() { try body(record.item) }
            case .codable:
                let cursor = try CodableItemRecord.order(Column("id")).fetchCursor(db)
                while let record = try cursor.next() { try body(record.item) }
            }
        }
    }

    public func count(where filter: ItemFilter) throws -> Int {
        try pool.read { db in
            try ItemRecord.filter(
                ItemRecord.Columns.priority == filter.priority?.rawValue
                    && ItemRecord.Columns.isInStock == filter.isInStock
            ).fetchCount(db)
        }
    }

    public func items(startingAt id: Int64, limit: Int) throws -> [Item] {
        try pool.read { db in
            switch flavor {
            case .records, .statements:
                try ItemRecord.filter(ItemRecord.Columns.id >= id).order(ItemRecord.Columns.id).limit(limit)
                    .fetchAll(db).map(\.item)
            case .codable:
                try CodableItemRecord.filter(Column("id") >= id).order(Column("id")).limit(limit)
                    .fetchAll(db).map(\.item)
            }
        }
    }

    public func page(_ query: ItemPageQuery) throws -> [Item] {
        try pool.read { db in
            switch flavor {
            case .records, .statements:
                try ItemRecord.filter(ItemRecord.Columns.priority == query.priority?.rawValue)
                    .order(ItemRecord.Columns.isInStock, ItemRecord.Columns.title, ItemRecord.Columns.id)
                    .limit(query.limit, offset: query.offset)
                    .fetchAll(db).map(\.item)
            case .codable:
                try CodableItemRecord.filter(Column("priority") == query.priority?.rawValue)
                    .order(Column("isInStock"), Column("title"), Column("id"))
                    .limit(query.limit, offset: query.offset)
                    .fetchAll(db).map(\.item)
            }
        }
    }

    // The query interface's updateAll and deleteOne decode no record, so both record flavors issue the
    // same statements; only `grdb+statements` goes through cached statements.
    public func update(_ updates: [ItemUpdate]) throws {
        try pool.write { db in
            for update in updates {
                switch flavor {
                case .records, .codable:
                    try ItemRecord.filter(key: update.id).updateAll(
                        db, ItemRecord.Columns.title.set(to: update.title),
                        ItemRecord.Columns.isInStock.set(to: update.isInStock),
                        ItemRecord.Columns.price.set(to: update.price))
                case .statements:
                    let statement = try db.cachedStatement(
                        sql: "UPDATE item SET title = ?, isInStock = ?, price = ? WHERE id = ?")
                    try statement.execute(arguments: [update.title, update.isInStock, update.price, update.id])
                }
            }
        }
    }

    public func delete(ids: [Int64]) throws {
        try pool.write { db in
            for id in ids {
                switch flavor {
                case .records, .codable:
                    _ = try ItemRecord.deleteOne(db, key: id)
                case .statements:
                    try db.cachedStatement(sql: "DELETE FROM item WHERE id = ?").execute(arguments: [id])
                }
            }
        }
    }
}

extension GRDBItemStore {
    /// A migration registered after the store's own and run by the migrator, as a GRDB app ships a schema change:
    /// the query interface deletes every item whose id is not its title's smallest, then a unique index.
    public func migrateToUniqueTitles() throws -> Int {
        let deleted = DeletedRows()
        var migrator = Self.migrator
        migrator.registerMigration("unique titles") { db in
            let firstOfEachTitle = ItemRecord.select(min(ItemRecord.Columns.id)).group(ItemRecord.Columns.title)
            deleted.count.store(
                try ItemRecord.filter(!firstOfEachTitle.contains(ItemRecord.Columns.id)).deleteAll(db),
                ordering: .relaxed)
            try db.create(index: "item_on_title", on: "item", columns: ["title"], unique: true)
        }
        try migrator.migrate(pool)
        return deleted.count.load(ordering: .relaxed)
    }

    /// What the migration's closure (run by `migrate` before it returns) reports back.
    private final class DeletedRows: Sendable {
        let count = Atomic<Int>(0)
    }
}

extension GRDBItemStore.Flavor {
    var summary: String {
        switch self {
        case .records: "GRDB 7 records with hand-written init(row:)/encode(to:), query interface, DatabasePool (WAL)"
        case .codable: "GRDB 7 records with Codable-derived conformances, query interface, DatabasePool (WAL)"
        case .statements: "GRDB 7 writes through db.cachedStatement (the bulk-write fast path); reads as grdb"
        }
    }
}
