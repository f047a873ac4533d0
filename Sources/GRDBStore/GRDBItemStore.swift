import Foundation
import GRDB
import GRDBSQLite
import PersistenceBench
import SQLiteSupport
import Synchronization

/// `grdb`, `grdb+codable`, `grdb+statements` and `grdb+queue`: GRDB 7 used the way its users write it.
///
/// A `DatabasePool` (WAL), a `DatabaseMigrator` for the schema, the query interface for reads. The variants
/// differ in what users write: hand-written record conformances (`grdb`), Codable-derived ones
/// (`grdb+codable`, items only: its league, house and profile records are `grdb`'s), or what an expert writes,
/// every item statement and every small read of the other capabilities through `db.cachedStatement`, compiled
/// once per connection (`grdb+statements`): the report shows GRDB's cost with and without compiling. `grdb+queue`
/// is `grdb` on a `DatabaseQueue` (one connection, in WAL mode), what GRDB's documentation recommends by default.
///
/// Where a `grdb` lookup's time goes beside `sqlite`'s, per call (valgrind's callgrind, instructions, 10k items):
/// `docs/stores.md` ("GRDB against the C API").
package final class GRDBItemStore: Store {
    package enum Flavor: String, CaseIterable, Sendable {
        case records = "grdb"
        case codable = "grdb+codable"
        case statements = "grdb+statements"
    }

    /// The GRDB connection type a store opens: what its threads share and how reads wait for writes.
    package enum Connection: Sendable {
        /// `DatabasePool`: one writer, readers on demand, WAL; reads run beside a write.
        case pool
        /// `DatabaseQueue`: one connection for reads and writes, serialized; here in WAL mode, as every store.
        case queue
    }

    package static let kinds: [StoreKind] =
        Flavor.allCases.map { flavor in
            kind(
                name: flavor.rawValue, summary: flavor.summary, connection: .pool,
                inclusion: flavor == .records ? .defaultRun : .variant,
                open: { try GRDBItemStore(directory: $0, flavor: flavor) })
        } + [
            kind(
                name: "grdb+queue",
                summary: "grdb on a DatabaseQueue (one serialized connection, WAL), GRDB's documented default",
                connection: .queue, inclusion: .variant,
                cannotRun: [
                    "pinned-reader": "grdb+queue's one connection has no snapshot to pin: a read held open on it "
                        + "would hold back every write"
                ],
                open: { try GRDBItemStore(directory: $0, flavor: .records, connection: .queue) }),
            kind(
                name: "grdb+fts",
                summary: "grdb with an FTS5 full-text index (trigram tokenizer) over item titles, created and kept in "
                    + "sync by GRDB (synchronize(withTable:)): search answers texts of 3+ characters from the index",
                connection: .pool, inclusion: .whenNamed,
                configuration: "; FTS5 external-content table item_fts(title) tokenize=trigram, GRDB's triggers",
                workNotes: ["search": "FTS5 trigram index for texts of 3+ characters; LIKE below"],
                open: { try GRDBItemStore(directory: $0, flavor: .records, fullText: true) }),
        ]

    private static func kind(
        name: String, summary: String, connection: Connection, inclusion: StoreKind.Inclusion,
        configuration extra: String = "", workNotes: [String: String] = [:], cannotRun: [String: String] = [:],
        open: @escaping @Sendable (URL) throws -> any Store
    ) -> StoreKind {
        StoreKind(
            name: name, summary: summary, durability: "every commit fsynced (WAL, synchronous=FULL)",
            configuration: (connection == .pool
                ? "DatabasePool (one writer, readers on demand): " : "DatabaseQueue (one connection): ")
                + "threading=multi-thread (SQLITE_OPEN_NOMUTEX: GRDB opens every connection so) journal_mode=WAL "
                + "synchronous=FULL cache_size=-2000 (2 MiB, the default) mmap_size=0 (the default) "
                + "temp_store=DEFAULT" + extra,
            engine: {
                "GRDB \(resolvedVersions["grdb.swift"] ?? "(version not resolved)") on SQLite \(String(cString: sqlite3_libversion()))"
            }, inclusion: inclusion, workNotes: workNotes, cannotRun: cannotRun,
            type: GRDBItemStore.self, open: open)
    }

    /// The pool, or the queue of `grdb+queue`.
    let database: any DatabaseWriter
    /// The profile's distinct stacks by id, loaded by the first profile write (`GRDBItemStore+Profile.swift`).
    var profileStacks: StackInterner?
    /// The table of the records of a shape, once asked (`GRDBItemStore+Records.swift`).
    var recordTable: GRDBRecordTable?
    let flavor: Flavor
    /// The SQL that puts back the writer's settings an untimed build changed, while it runs (`+Build`).
    var settingsBeforeBuild: String?
    /// Whether the schema has the titles' FTS5 index (`grdb+fts`, `GRDBItemStore+Search.swift`).
    let fullText: Bool
    /// Every connection's busy timeout, counted in one tally (`GRDBItemStore+Sharing.swift`).
    let busyTimeout = BusyTimeout(milliseconds: Int(SQLiteConnection.busyTimeoutSeconds) * 1_000)

    package init(directory: URL, flavor: Flavor, connection: Connection = .pool, fullText: Bool = false) throws {
        var configuration = Configuration()
        // As the other SQLite stores' connections (`busy_timeout`): a write or a checkpoint that finds a reader in
        // its way (an observation's fetch still running on a pool reader) waits for it rather than fails. A pool
        // used from one thread never waits. GRDB's `.timeout` is SQLite's own handler; `BusyTimeout` sleeps as it
        // does, and counts.
        let busyTimeout = busyTimeout
        configuration.busyMode = .callback { tries in busyTimeout.retry(afterTries: tries) }
        let path = directory.appendingPathComponent(Self.databaseName).path
        switch connection {
        case .pool:
            database = try DatabasePool(path: path, configuration: configuration)
        case .queue:
            // A queue keeps SQLite's default journal unless asked: WAL, as every SQLite store here.
            configuration.journalMode = .wal
            database = try DatabaseQueue(path: path, configuration: configuration)
        }
        self.flavor = flavor
        self.fullText = fullText
        // GRDB sets synchronous=NORMAL on its writer when it enables WAL, after `prepareDatabase` has run, so the
        // setting is changed on the writer itself: FULL makes each commit durable, as in every store here.
        try database.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        try Self.migrator(fullText: fullText).migrate(database)
    }

    /// The store's schema, as migrations: the titles' full-text index last, for `grdb+fts`.
    static func migrator(fullText: Bool) -> DatabaseMigrator {
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
        if fullText { registerFullTextMigration(in: &migrator) }
        return migrator
    }

    /// The settings that make a SQLite store comparable to another, read from the writer connection, where
    /// commits happen: `threading=multi-thread journal_mode=wal synchronous=2 cache_size=-2000 mmap_size=0
    /// temp_store=0`.
    package func pragmaSettings() throws -> String {
        try database.writeWithoutTransaction { db in
            // SQLite gives a connection a mutex of its own only in serialized mode.
            "threading=\(db.sqliteConnection.flatMap(sqlite3_db_mutex) == nil ? "multi-thread" : "serialized") "
                + (try ["journal_mode", "synchronous", "cache_size", "mmap_size", "temp_store"].map { name in
                    "\(name)=\(try String.fetchOne(db, sql: "PRAGMA \(name)") ?? "?")"
                }.joined(separator: " "))
        }
    }

    package func close() throws {
        try database.close()
    }

    /// Checkpoints the WAL and truncates it on the writer connection (`Database.checkpoint(.truncate)`).
    package func settle() throws {
        try database.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
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
