import Foundation
import PersistenceBench
import SQLiteSupport

/// `sqlite`: the SQLite C API used directly: prepared statements, `sqlite3_step`, column getters.
///
/// Same file name, schema, indexes, pragmas and threading mode as `grdb` (multi-thread, WAL, synchronous=FULL).
/// What still differs from a `grdb` call is GRDB's layer: the connection's dispatch queue, an explicit read
/// transaction per call (`sqlite+txn` pays it too), and statements compiled per call; `docs/stores.md` splits it.
package final class SQLiteItemStore: Store {
    /// What a performance-minded user sets: a page cache and a memory map that hold the data (1 GiB each asked;
    /// SQLite caps the map at its compile-time limit) and temporary tables in memory.
    ///
    /// Durability is unchanged.
    static let tunedPragmas =
        "PRAGMA cache_size = -1048576; PRAGMA mmap_size = 1073741824; PRAGMA temp_store = MEMORY"

    package static let kinds = [
        StoreKind(
            name: "sqlite",
            summary: "SQLite C API directly: prepared statements, sqlite3_step, column getters; WAL",
            durability: "every commit fsynced (WAL, synchronous=FULL)",
            configuration: SQLiteConnection.defaultConfiguration,
            engine: { SQLiteConnection.engine }, type: SQLiteItemStore.self,
            open: { try SQLiteItemStore(directory: $0, tuned: false) }),
        StoreKind(
            name: "sqlite+tuned",
            summary: "sqlite as a performance-minded user sets it up: a 1 GiB page cache, a 1 GiB memory map "
                + "(reads served from mapped pages), temporary tables in memory",
            durability: "every commit fsynced (WAL, synchronous=FULL)",
            configuration: SQLiteConnection.threadingConfiguration
                + " journal_mode=WAL synchronous=FULL cache_size=-1048576 (1 GiB) "
                + "mmap_size=\(min(1 << 30, SQLiteConnection.maximumMapSize)) (1 GiB asked; this build's limit is "
                + "\(SQLiteConnection.maximumMapSize)) temp_store=MEMORY",
            engine: { SQLiteConnection.engine }, inclusion: .variant, type: SQLiteItemStore.self,
            open: { try SQLiteItemStore(directory: $0, tuned: true) }),
        StoreKind(
            name: "sqlite+normal",
            summary: "sqlite with synchronous=NORMAL, GRDB's own default in WAL mode: a commit appends to the log "
                + "without a sync; the log is synced when it is checkpointed",
            durability: "commits not synced: WAL, synchronous=NORMAL (the log is synced at each checkpoint)",
            promise: .committedPrefix,
            configuration: SQLiteConnection.defaultConfiguration.replacingOccurrences(
                of: "synchronous=FULL", with: "synchronous=NORMAL"),
            engine: { SQLiteConnection.engine }, inclusion: .variant, type: SQLiteItemStore.self,
            open: { try SQLiteItemStore(directory: $0, tuned: false, synchronous: "NORMAL") }),
        StoreKind(
            name: "sqlite+txn",
            summary: "sqlite with every read call in its own explicit read transaction (BEGIN DEFERRED … COMMIT, "
                + "compiled every call, as a GRDB read does): the transaction's share of a grdb lookup",
            durability: "every commit fsynced (WAL, synchronous=FULL)",
            configuration: SQLiteConnection.defaultConfiguration + "; each read call in BEGIN DEFERRED/COMMIT",
            engine: { SQLiteConnection.engine }, inclusion: .whenNamed, type: SQLiteItemStore.self,
            open: { try SQLiteItemStore(directory: $0, tuned: false, readsInTransactions: true) }),
        StoreKind(
            name: "sqlite+fts",
            summary: "sqlite with an FTS5 full-text index (trigram tokenizer) over item titles, kept in sync by "
                + "triggers in every writing transaction: search answers texts of 3+ characters from the index",
            durability: "every commit fsynced (WAL, synchronous=FULL)",
            configuration: SQLiteConnection.defaultConfiguration
                + "; FTS5 external-content table item_fts(title) tokenize=trigram, three triggers",
            engine: { SQLiteConnection.engine }, inclusion: .whenNamed,
            workNotes: ["search": "FTS5 trigram index for texts of 3+ characters; LIKE below"],
            type: SQLiteItemStore.self,
            open: { try SQLiteItemStore(directory: $0, tuned: false, fullText: true) }),
        StoreKind(
            name: "sqlite+files",
            summary: "sqlite keeping every blob of a record shape as a file beside the database, its name in the "
                + "row, as apps keep photos: the file flushed before the row commits, orphans removed at open",
            durability: "every commit fsynced (WAL, synchronous=FULL); each file and its directory fsynced first",
            configuration: SQLiteConnection.defaultConfiguration + "; blobs as files in attachments/",
            engine: { SQLiteConnection.engine }, inclusion: .whenNamed, type: SQLiteItemStore.self,
            open: { try SQLiteItemStore(directory: $0, tuned: false, blobsAsFiles: true) }),
        asyncKind,
    ]

    /// The schema, written to match what GRDB's `create(table:)` and `create(index:)` produce for `grdb`.
    static let schema = """
        CREATE TABLE IF NOT EXISTS "item" ("id" INTEGER PRIMARY KEY, "title" TEXT NOT NULL, \
        "notes" TEXT NOT NULL, "isInStock" BOOLEAN NOT NULL, "priority" INTEGER, "price" DOUBLE NOT NULL, \
        "createdAt" DOUBLE NOT NULL);
        CREATE INDEX IF NOT EXISTS "item_on_priority_isInStock_title" ON "item"("priority", "isInStock", "title");
        """
    static let columns = "id, title, notes, isInStock, priority, price, createdAt"

    let connection: SQLiteConnection
    let directory: URL
    /// Whether a record's blobs are kept as files beside the database (`sqlite+files`).
    let blobsAsFiles: Bool
    /// The table of the records of a shape, once asked (`SQLiteItemStore+Records.swift`).
    var recordTable: SQLiteRecordTable?
    /// Whether the connection runs `tunedPragmas` (`sqlite+tuned`): a reader's connection runs them too.
    let tuned: Bool
    /// `PRAGMA synchronous`: FULL, or NORMAL for `sqlite+normal`.
    let synchronous: String
    /// Whether every read call runs in an explicit read transaction of its own (`sqlite+txn`).
    let readsInTransactions: Bool
    /// The profile's distinct stacks by id, loaded by the first profile write (`SQLiteItemStore+Profile.swift`).
    var profileStacks: StackInterner?
    let insertStatement: SQLiteStatement
    let selectByID: SQLiteStatement
    /// `WHERE id IN (?, …)` with `KeyBatch.keysPerStatement` placeholders: a batch of lookups.
    let selectByIDs: SQLiteStatement
    let selectAll: SQLiteStatement
    let selectRange: SQLiteStatement
    let countWithPriority: SQLiteStatement
    let countWithoutPriority: SQLiteStatement
    let countPriced: SQLiteStatement
    let pageWithPriority: SQLiteStatement
    let pageWithoutPriority: SQLiteStatement
    let updateStatement: SQLiteStatement
    let deleteStatement: SQLiteStatement
    let searchStatements: SearchStatements

    package init(
        directory: URL, tuned: Bool, synchronous: String = "FULL", readsInTransactions: Bool = false,
        fullText: Bool = false, blobsAsFiles: Bool = false
    ) throws {
        let connection = try SQLiteConnection(path: directory.appendingPathComponent(Self.databaseName).path)
        self.connection = connection
        self.directory = directory
        self.blobsAsFiles = blobsAsFiles
        self.tuned = tuned
        self.synchronous = synchronous
        self.readsInTransactions = readsInTransactions
        // Foreign keys on, as GRDB sets them: the house tables cascade deletes through them.
        try connection.execute(
            "PRAGMA journal_mode = WAL; PRAGMA synchronous = \(synchronous); PRAGMA foreign_keys = ON")
        if tuned { try connection.execute(Self.tunedPragmas) }
        try connection.transaction {
            try connection.execute(Self.schema + Self.leagueSchema + Self.houseSchema + Self.profileSchema)
            if fullText { try connection.execute(Self.fullTextSchema) }
        }
        let columns = Self.columns
        insertStatement = try connection.prepare("INSERT INTO item (\(columns)) VALUES (?, ?, ?, ?, ?, ?, ?)")
        selectByID = try connection.prepare("SELECT \(columns) FROM item WHERE id = ?")
        selectByIDs = try connection.prepare("SELECT \(columns) FROM item WHERE id IN (\(KeyBatch.placeholders))")
        selectAll = try connection.prepare("SELECT \(columns) FROM item ORDER BY id")
        selectRange = try connection.prepare("SELECT \(columns) FROM item WHERE id >= ? ORDER BY id LIMIT ?")
        countWithPriority = try connection.prepare("SELECT COUNT(*) FROM item WHERE priority = ? AND isInStock = ?")
        countWithoutPriority = try connection.prepare(
            "SELECT COUNT(*) FROM item WHERE priority IS NULL AND isInStock = ?")
        countPriced = try connection.prepare("SELECT COUNT(*) FROM item WHERE price >= ? AND price < ?")
        let order = "ORDER BY isInStock, title, id LIMIT ? OFFSET ?"
        pageWithPriority = try connection.prepare("SELECT \(columns) FROM item WHERE priority = ? \(order)")
        pageWithoutPriority = try connection.prepare("SELECT \(columns) FROM item WHERE priority IS NULL \(order)")
        updateStatement = try connection.prepare("UPDATE item SET title = ?, isInStock = ?, price = ? WHERE id = ?")
        deleteStatement = try connection.prepare("DELETE FROM item WHERE id = ?")
        searchStatements = try SearchStatements(connection: connection, fullText: fullText)
    }

    /// The settings that make a SQLite store comparable to another, read from the live connection:
    /// `threading=multi-thread journal_mode=wal synchronous=2 cache_size=-2000 mmap_size=0 temp_store=0`.
    package func pragmaSettings() throws -> String {
        "threading=\(connection.threadingMode) "
            + (try ["journal_mode", "synchronous", "cache_size", "mmap_size", "temp_store"].map { name in
                "\(name)=\(try connection.pragma(name))"
            }.joined(separator: " "))
    }

    package func close() throws {
        // Statements must be finalized before the connection closes.
        for statement in [
            insertStatement, selectByID, selectByIDs, selectAll, selectRange, countWithPriority, countWithoutPriority,
            countPriced,
            pageWithPriority,
            pageWithoutPriority, updateStatement, deleteStatement,
        ] + searchStatements.all { statement.finalize() }
        recordTable?.finalize()
        try connection.close()
    }

    package func settle() throws {
        try connection.checkpoint()
    }

    @inline(__always)
    static func item(from row: SQLiteStatement) -> Item {
        Item(
            id: row.int64(at: 0), title: row.text(at: 1), notes: row.text(at: 2), isInStock: row.int64(at: 3) != 0,
            priority: row.isNull(at: 4) ? nil : Item.Priority(rawValue: Int(row.int64(at: 4))),
            price: row.double(at: 5), createdAt: Date(timeIntervalSince1970: row.double(at: 6)))
    }
}

extension SQLiteItemStore {
    /// Runs `body` with a statement prepared for this call and finalized after it.
    func withStatement<T>(_ sql: String, _ body: (SQLiteStatement) throws -> T) throws -> T {
        let statement = try connection.prepare(sql)
        defer { statement.finalize() }
        return try body(statement)
    }

    /// Runs a read call: in a read transaction of its own for `sqlite+txn`, else as SQLite runs a statement alone
    /// (in the implicit transaction every statement gets).
    @inline(__always)
    func reading<T>(_ body: () throws -> T) throws -> T {
        readsInTransactions ? try connection.readTransaction(body) : try body()
    }

    /// Steps a statement that returns no rows, then resets it for its next bindings.
    func execute(_ statement: SQLiteStatement) throws {
        defer { statement.reset() }
        _ = try statement.step()
    }
}
