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
public final class GRDBItemStore: Store {
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
        registerLeagueMigration(in: &migrator)
        registerHouseMigration(in: &migrator)
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
