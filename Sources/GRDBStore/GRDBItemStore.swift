import Foundation
import GRDB
import GRDBSQLite
import PersistenceBench
import Synchronization

/// `grdb`, `grdb+codable` and `grdb+statements`: GRDB 7 used the way its users write it.
///
/// A `DatabasePool` (WAL), a `DatabaseMigrator` for the schema, the query interface for reads. The variants
/// differ in what users write: hand-written record conformances (`grdb`), Codable-derived ones
/// (`grdb+codable`, items only: its league, house and profile records are `grdb`'s), or what an expert writes,
/// every item statement and every small read of the other capabilities through `db.cachedStatement`, compiled
/// once per connection (`grdb+statements`): the report shows GRDB's cost with and without compiling.
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
            configuration: "DatabasePool (one writer, readers on demand): journal_mode=WAL synchronous=FULL "
                + "cache_size=-2000 (2 MiB, the default) mmap_size=0 (the default) temp_store=DEFAULT",
            engine: {
                "GRDB \(resolvedVersions["grdb.swift"] ?? "(version not resolved)") on SQLite \(String(cString: sqlite3_libversion()))"
            }, inclusion: flavor == .records ? .defaultRun : .variant, type: GRDBItemStore.self,
            open: { try GRDBItemStore(directory: $0, flavor: flavor) })
    }

    let pool: DatabasePool
    /// The profile's distinct stacks by id, loaded by the first profile write (`GRDBGraphStore.swift`).
    var profileStacks: StackInterner?
    let flavor: Flavor

    public init(directory: URL, flavor: Flavor) throws {
        var configuration = Configuration()
        // As the other SQLite stores' connections (`busy_timeout`): a write or a checkpoint that finds a reader in
        // its way (an observation's fetch still running on a pool reader) waits for it rather than fails. A pool
        // used from one thread never waits.
        configuration.busyMode = .timeout(5)
        pool = try DatabasePool(
            path: directory.appendingPathComponent("store.sqlite").path, configuration: configuration)
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
    /// commits happen: `journal_mode=wal synchronous=2 cache_size=-2000 mmap_size=0 temp_store=0`.
    public func pragmaSettings() throws -> String {
        try pool.writeWithoutTransaction { db in
            try ["journal_mode", "synchronous", "cache_size", "mmap_size", "temp_store"].map { name in
                "\(name)=\(try String.fetchOne(db, sql: "PRAGMA \(name)") ?? "?")"
            }.joined(separator: " ")
        }
    }

    public func close() throws {
        try pool.close()
    }

    /// Checkpoints the WAL and truncates it on the writer connection (`Database.checkpoint(.truncate)`).
    public func settle() throws {
        try pool.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
    }

    /// The item columns in `ItemRecord.databaseSelection`'s order, for the cached statements of `grdb+statements`.
    static let columns = "id, title, notes, isInStock, priority, price, createdAt"

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
                sql: "INSERT INTO item (\(Self.columns)) VALUES (?, ?, ?, ?, ?, ?, ?)")
            try statement.execute(arguments: [
                item.id, item.title, item.notes, item.isInStock, item.priority?.rawValue, item.price,
                item.createdAt.timeIntervalSince1970,
            ])
        }
    }

    public func item(id: Int64) throws -> Item? {
        try pool.read { db in
            switch flavor {
            case .records: try ItemRecord.fetchOne(db, key: id)?.item
            case .codable: try CodableItemRecord.fetchOne(db, key: id)?.item
            case .statements:
                try ItemRecord.fetchOne(
                    db.cachedStatement(sql: "SELECT \(Self.columns) FROM item WHERE id = ?"), arguments: [id])?.item
            }
        }
    }

    public func forEachItem(_ body: (Item) throws -> Void) throws {
        try pool.read { db in
            switch flavor {
            case .records:
                let cursor = try ItemRecord.order(ItemRecord.Columns.id).fetchCursor(db)
                while let record = try cursor.next() { try body(record.item) }
            case .statements:
                let cursor = try ItemRecord.fetchCursor(
                    db.cachedStatement(sql: "SELECT \(Self.columns) FROM item ORDER BY id"))
                while let record = try cursor.next() { try body(record.item) }
            case .codable:
                let cursor = try CodableItemRecord.order(Column("id")).fetchCursor(db)
                while let record = try cursor.next() { try body(record.item) }
            }
        }
    }

    public func count(where filter: ItemFilter) throws -> Int {
        try pool.read { db in try Self.count(where: filter, flavor: flavor, in: db) }
    }

    /// `count(where:)` in a read of `db`, as `flavor` writes it.
    static func count(where filter: ItemFilter, flavor: Flavor, in db: Database) throws -> Int {
        switch flavor {
        case .records, .codable:
            try ItemRecord.filter(
                ItemRecord.Columns.priority == filter.priority?.rawValue
                    && ItemRecord.Columns.isInStock == filter.isInStock
            ).fetchCount(db)
        case .statements:
            try Int.fetchOne(
                db.cachedStatement(
                    sql: "SELECT COUNT(*) FROM item WHERE priority \(filter.priority == nil ? "IS NULL" : "= ?") "
                        + "AND isInStock = ?"),
                arguments: StatementArguments(
                    [filter.priority?.rawValue].compactMap { $0 } + [
                        filter.isInStock ? 1 : 0
                    ])) ?? 0
        }
    }

    public func count(pricedIn range: PriceRange) throws -> Int {
        try pool.read { db in
            switch flavor {
            case .records, .codable:
                try ItemRecord.filter(ItemRecord.Columns.price >= range.lower && ItemRecord.Columns.price < range.upper)
                    .fetchCount(db)
            case .statements:
                try Int.fetchOne(
                    db.cachedStatement(sql: "SELECT COUNT(*) FROM item WHERE price >= ? AND price < ?"),
                    arguments: [range.lower, range.upper]) ?? 0
            }
        }
    }

    public func items(startingAt id: Int64, limit: Int) throws -> [Item] {
        try pool.read { db in
            switch flavor {
            case .records:
                try ItemRecord.filter(ItemRecord.Columns.id >= id).order(ItemRecord.Columns.id).limit(limit)
                    .fetchAll(db).map(\.item)
            case .statements:
                try ItemRecord.fetchAll(
                    db.cachedStatement(sql: "SELECT \(Self.columns) FROM item WHERE id >= ? ORDER BY id LIMIT ?"),
                    arguments: [id, limit]
                ).map(\.item)
            case .codable:
                try CodableItemRecord.filter(Column("id") >= id).order(Column("id")).limit(limit)
                    .fetchAll(db).map(\.item)
            }
        }
    }

    public func page(_ query: ItemPageQuery) throws -> [Item] {
        try pool.read { db in try Self.page(query, flavor: flavor, in: db) }
    }

    /// `page(_:)` in a read of `db`, as `flavor` writes it.
    static func page(_ query: ItemPageQuery, flavor: Flavor, in db: Database) throws -> [Item] {
        switch flavor {
        case .records:
            try ItemRecord.filter(ItemRecord.Columns.priority == query.priority?.rawValue)
                .order(ItemRecord.Columns.isInStock, ItemRecord.Columns.title, ItemRecord.Columns.id)
                .limit(query.limit, offset: query.offset)
                .fetchAll(db).map(\.item)
        case .statements:
            try ItemRecord.fetchAll(
                db.cachedStatement(
                    sql: "SELECT \(Self.columns) FROM item WHERE priority "
                        + "\(query.priority == nil ? "IS NULL" : "= ?") "
                        + "ORDER BY isInStock, title, id LIMIT ? OFFSET ?"),
                arguments: StatementArguments(
                    [query.priority?.rawValue].compactMap { $0 } + [query.limit, query.offset])
            ).map(\.item)
        case .codable:
            try CodableItemRecord.filter(Column("priority") == query.priority?.rawValue)
                .order(Column("isInStock"), Column("title"), Column("id"))
                .limit(query.limit, offset: query.offset)
                .fetchAll(db).map(\.item)
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
        case .codable:
            "GRDB 7 records with Codable-derived conformances, query interface, DatabasePool (WAL); items only: "
                + "its league, house and profile records are grdb's"
        case .statements:
            "GRDB 7 as an expert writes it: every item, league and profile statement a db.cachedStatement "
                + "(compiled once), rows decoded by grdb's records; DatabasePool (WAL)"
        }
    }
}
