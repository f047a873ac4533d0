import Foundation
import PersistenceBench
import SQLiteSupport

/// The persistent side of the object graph: one SQLite file in Core Data's layout, its model, its row cache
/// and its statements.
///
/// Contexts fetch and save through it.
///
/// Opening an empty file creates Core Data's tables (`Z<ENTITY>`, `Z_PRIMARYKEY`, `Z_METADATA`,
/// `Z_MODELCACHE`); opening an existing one checks that its metadata's entity hashes match the model.
///
/// Like Core Data's coordinator, it saves through one writer connection and can give a context on another thread
/// a read connection of its own (Core Data's connection pool, WAL): that context's fetches do not wait for a save.
/// What the contexts share, the row cache, is then behind the coordinator's lock (`shareAcrossThreads`).
package final class ModelContainer {
    package let model: ManagedObjectModel
    package let url: URL
    /// The writer's connection, with the statements prepared on it: every save, and the fetches of contexts that
    /// have no connection of their own.
    let writer: PooledConnection
    var connection: SQLiteConnection { writer.connection }
    let rowCache: RowCache
    /// What this container does beyond the object graph, as SwiftData and Core Data do (`orm+swiftdata`).
    package let mechanisms: SwiftDataMechanisms
    /// Queries run (fetches, counts, fault and relationship fault fulfilments, prefetches): what N+1 costs.
    package private(set) var queryCount = 0
    /// Contexts that merge every other context's saves (`ModelContext.automaticallyMergesChanges`).
    private var mergingContexts: [ModelContext] = []
    /// Where binary values that allow external storage and exceed `externalStorageThreshold` go, as Core Data keeps
    /// them in `.<store>_SUPPORT/_EXTERNAL_DATA` beside the store; nil for a model without such an attribute.
    let externalData: AttachmentFiles?

    /// The size above which an externally storable value goes to a file: 100 KB, the figure an Apple engineer gave
    /// at Ask Apple 2022 for Core Data's "Allows External Storage" (compiled by fatbobman.com, "Core Data of Ask
    /// Apple 2022"); taken as 100 KiB.
    ///
    /// Measured in 2011 on OS X Lion it was 1 MB (bluecrowbar.com, "Core Data external storage"). SwiftData's
    /// `.externalStorage` is Core Data's mechanism.
    package static let externalStorageThreshold = 102_400
    /// The first byte of a stored value that allows external storage: the bytes follow, or a file's name does.
    static let inlineMarker: UInt8 = 1
    static let externalMarker: UInt8 = 2

    /// Opens or creates the store at `url` (a file) in WAL mode with `synchronous=FULL`, so that a save is on
    /// disk when it returns, as the other SQLite stores' commits are.
    ///
    /// `mechanisms` adds SwiftData's and Core Data's own work: history tables, and `auto_vacuum=INCREMENTAL` for a
    /// store created with post-save maintenance.
    ///
    /// - Throws: `SQLiteError`, or `ORMError.incompatibleStore` when the file was written with another model.
    package init(model: ManagedObjectModel, url: URL, mechanisms: SwiftDataMechanisms = []) throws {
        self.model = model
        self.url = url
        self.mechanisms = mechanisms
        let connection = try Self.connect(to: url)
        writer = PooledConnection(connection)
        rowCache = RowCache(entityCount: model.entities.count)
        let external = model.entities.contains { $0.columns.contains(where: \.allowsExternalStorage) }
        let name = url.deletingPathExtension().lastPathComponent
        externalData =
            external
            ? try AttachmentFiles(
                directory: url.deletingLastPathComponent().appendingPathComponent(".\(name)_SUPPORT/_EXTERNAL_DATA"))
            : nil
        do {
            // Takes effect only on a store with no table yet.
            if mechanisms.contains(.postSaveMaintenance) { try connection.execute("PRAGMA auto_vacuum = INCREMENTAL") }
            try connection.execute("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL")
            try connection.transaction {
                if try isEmpty() { try createSchema() } else { try checkMetadata() }
                if mechanisms.contains(.historyTracking) {
                    for sql in Self.historySchema { try connection.execute(sql) }
                }
            }
            try removeOrphanedExternalData()
        } catch {
            try? close()
            throw error
        }
    }

    package func close() throws {
        try writer.close()
    }

    /// Checkpoints the WAL into the database file and truncates it.
    package func checkpoint() throws {
        try connection.checkpoint()
    }

    /// Core Data's maintenance after a save (`SwiftDataMechanisms.postSaveMaintenance`): the free pages returned
    /// to the file system, then the WAL checkpointed into the database and truncated.
    ///
    /// A reader that keeps the checkpoint from finishing is not an error here, as it is not to Core Data: the next save
    /// checkpoints again.
    func maintainAfterSave() throws {
        try connection.execute("PRAGMA incremental_vacuum; PRAGMA wal_checkpoint(TRUNCATE)")
    }

    /// A prepared statement for `sql` on the writer, prepared once and cached, as Core Data caches its SQL.
    func statement(_ sql: String) throws -> SQLiteStatement {
        try writer.statement(sql)
    }

    /// Runs a query on `connection` (the writer's when nil): binds `bindings`, then calls `body` for each row with
    /// the statement positioned on it.
    func query(
        _ sql: String, _ bindings: [AttributeValue], on connection: PooledConnection? = nil,
        _ body: (SQLiteStatement) throws -> Void
    ) throws {
        let statement = try (connection ?? writer).statement(sql)
        defer { statement.reset() }
        bind(bindings, to: statement)
        rowCache.coordinated { queryCount += 1 }
        while try statement.step() { try body(statement) }
    }

    // MARK: Contexts on other threads

    /// Puts the row cache behind the coordinator's lock, before a context on another thread first uses this
    /// container.
    ///
    /// Until then one thread uses it and takes no lock.
    package func shareAcrossThreads() {
        rowCache.makeShared()
    }

    /// A read connection of its own for a context on another thread: in WAL mode it reads the last commit while
    /// the writer saves.
    func openReadConnection() throws -> PooledConnection {
        PooledConnection(try Self.connect(to: url))
    }

    /// A connection to the store's file with the framework's SQL functions defined (`StringSearch`).
    private static func connect(to url: URL) throws -> SQLiteConnection {
        let connection = try SQLiteConnection(path: url.path)
        try StringSearch.register(on: connection)
        return connection
    }

    /// A context for another thread: a read connection of its own, merging every other context's saves.
    ///
    /// The row cache is shared from now on. `closeMergingContext()` ends it.
    func makeMergingContext() throws -> ModelContext {
        shareAcrossThreads()
        let context = ModelContext(self, reads: try openReadConnection())
        context.automaticallyMergesChanges = true
        return context
    }

    /// Starts or stops handing `context` every other context's save notifications.
    func setMerging(_ context: ModelContext, _ merging: Bool) {
        rowCache.coordinated {
            mergingContexts.removeAll { $0 === context }
            if merging { mergingContexts.append(context) }
        }
    }

    /// Whether any context merges saves: a save then collects the identifiers it changed.
    var hasMergingContexts: Bool { rowCache.coordinated { !mergingContexts.isEmpty } }

    /// Hands a save's notification to every merging context but the one that saved (`NSManagedObjectContextDidSave`).
    func post(_ notification: ContextDidSave, from source: ModelContext) {
        rowCache.coordinated {
            for context in mergingContexts where context !== source { context.receive(notification) }
        }
    }

    func bind(_ values: [AttributeValue], to statement: SQLiteStatement, from first: Int32 = 1) {
        for (offset, value) in values.enumerated() { bind(value, at: first + Int32(offset), to: statement) }
    }

    /// Binds a value to be stored in `column`: a binary value that allows external storage is stored behind its
    /// marker byte, inline or, above the threshold, as the name of a file written (and flushed) now, before the
    /// save's commit (`ModelContext.save` flushes the directory).
    @inline(__always)
    func bind(_ value: AttributeValue, of column: Column, at index: Int32, to statement: SQLiteStatement) throws {
        guard column.allowsExternalStorage, case .blob(let bytes) = value, let externalData else {
            return bind(value, at: index, to: statement)
        }
        if bytes.count > Self.externalStorageThreshold {
            let name = try externalData.write(bytes, label: "data")
            statement.bindCopy([Self.externalMarker] + Array(name.utf8), at: index)
        } else {
            statement.bindCopy([Self.inlineMarker] + bytes, at: index)
        }
    }

    /// Files no stored value names (a save that never committed, a value replaced or deleted) are removed, as Core
    /// Data collects its external data lazily.
    private func removeOrphanedExternalData() throws {
        try externalData?.removeOrphans(keeping: externalDataNames())
    }

    /// The names of the files stored values name.
    package func externalDataNames() throws -> Set<String> {
        var named = Set<String>()
        for entity in model.entities {
            for column in entity.columns where column.allowsExternalStorage {
                try query(
                    "SELECT \(column.name) FROM \(entity.table) WHERE substr(\(column.name), 1, 1) = x'02'", []
                ) { row in named.insert(String(decoding: row.blob(at: 0).dropFirst(), as: UTF8.self)) }
            }
        }
        return named
    }

    @inline(__always)
    func bind(_ value: AttributeValue, at index: Int32, to statement: SQLiteStatement) {
        switch value {
        case .null: statement.bindNull(at: index)
        case .integer(let integer): statement.bind(integer, at: index)
        case .real(let real): statement.bind(real, at: index)
        case .text(let text): statement.bindCopy(text, at: index)
        case .blob(let bytes): statement.bindCopy(bytes, at: index)
        }
    }

    /// The columns of `entity` from a row of its `selectSQL`, which start at column 2 (after Z_PK, Z_OPT).
    func values(of entity: Entity, in row: SQLiteStatement) throws -> [AttributeValue] {
        var values: [AttributeValue] = []
        values.reserveCapacity(entity.columns.count)
        for (offset, column) in entity.columns.enumerated() {
            let index = Int32(offset + 2)
            if row.isNull(at: index) {
                values.append(.null)
                continue
            }
            switch column.storage {
            case .integer: values.append(.integer(row.int64(at: index)))
            case .real, .timestamp: values.append(.real(row.double(at: index)))
            case .text: values.append(.text(row.text(at: index)))
            case .binary where column.allowsExternalStorage:
                // The bytes after the marker, copied once from the row.
                switch row.firstByte(at: index) {
                case Self.externalMarker:
                    guard let externalData else {
                        throw ORMError.model("\(entity.name) has external data but no folder")
                    }
                    let name = String(decoding: row.blob(at: index, from: 1), as: UTF8.self)
                    values.append(.blob(try externalData.read(name)))
                case Self.inlineMarker: values.append(.blob(row.blob(at: index, from: 1)))
                default: values.append(.blob(row.blob(at: index)))
                }
            case .binary: values.append(.blob(row.blob(at: index)))
            }
        }
        return values
    }

    /// Reserves `count` primary keys of `entity` in `Z_PRIMARYKEY` and returns the first.
    ///
    /// Runs inside the save's transaction.
    func allocatePrimaryKeys(for entity: Entity, count: Int) throws -> Int64 {
        var maximum: Int64 = 0
        try query("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", [.integer(entity.number)]) {
            maximum = $0.int64(at: 0)
        }
        let update = try statement("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?")
        defer { update.reset() }
        update.bind(maximum + Int64(count), at: 1)
        update.bind(entity.number, at: 2)
        _ = try update.step()
        return maximum + 1
    }

    /// Makes an attribute unique in a saved store, as the lightweight migration to a model version that adds
    /// `@Attribute(.unique)` does: a unique index on its column, which fails while stored rows repeat a value, and
    /// makes every later save that would repeat one fail.
    package func addUniqueConstraint<Root, Value>(on attribute: Attribute<Root, Value>) throws {
        let entity = try model.entity(for: Root.self)
        let column = "Z" + attribute.name.uppercased()
        try connection.transaction {
            try connection.execute(
                "CREATE UNIQUE INDEX Z_\(entity.name)_UNIQUE_\(attribute.name) ON \(entity.table) (\(column))")
        }
    }

    private func isEmpty() throws -> Bool {
        var tables = 0
        try query("SELECT count(*) FROM sqlite_master WHERE type = 'table'", []) { tables = Int($0.int64(at: 0)) }
        return tables == 0
    }

    private func createSchema() throws {
        for sql in model.schema { try connection.execute(sql) }
        let insertKey = try connection.prepare(
            "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, 0, 0)")
        defer { insertKey.finalize() }
        for entity in model.entities {
            insertKey.bind(entity.number, at: 1)
            insertKey.bindCopy(entity.name, at: 2)
            defer { insertKey.reset() }
            _ = try insertKey.step()
        }
        let metadata: [String: Any] = [
            "NSStoreType": "SQLite", "NSStoreUUID": UUID().uuidString,
            "NSStoreModelVersionHashes": model.versionHashes,
            "NSPersistenceFrameworkVersion": "PersistenceBench ORM emulation",
        ]
        let plist = try PropertyListSerialization.data(fromPropertyList: metadata, format: .binary, options: 0)
        let insertMetadata = try connection.prepare(
            "INSERT INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)")
        defer { insertMetadata.finalize() }
        insertMetadata.bindCopy(metadata["NSStoreUUID"] as? String ?? "", at: 1)
        insertMetadata.bindCopy([UInt8](plist), at: 2)
        _ = try insertMetadata.step()
    }

    private func checkMetadata() throws {
        var plist: [UInt8] = []
        do {
            try query("SELECT Z_PLIST FROM Z_METADATA WHERE Z_VERSION = 1", []) { plist = $0.blob(at: 0) }
        } catch {
            throw ORMError.incompatibleStore(url.path, "it has no Core Data metadata (\(error))")
        }
        let metadata = try? PropertyListSerialization.propertyList(from: Data(plist), format: nil) as? [String: Any]
        guard let stored = metadata?["NSStoreModelVersionHashes"] as? [String: Data] else {
            throw ORMError.incompatibleStore(url.path, "its metadata holds no entity version hashes")
        }
        let current = model.versionHashes
        guard stored != current else { return }
        let differing = Set(stored.keys).union(current.keys).filter { stored[$0] != current[$0] }.sorted()
        throw ORMError.incompatibleStore(
            url.path, "entities \(differing.joined(separator: ", ")) differ from the model; it needs a migration")
    }
}

/// One SQLite connection of a container and the statements prepared on it.
final class PooledConnection {
    let connection: SQLiteConnection
    private var statements: [String: SQLiteStatement] = [:]

    init(_ connection: SQLiteConnection) { self.connection = connection }

    /// A prepared statement for `sql`, prepared once and cached.
    func statement(_ sql: String) throws -> SQLiteStatement {
        if let statement = statements[sql] { return statement }
        let statement = try connection.prepare(sql)
        statements[sql] = statement
        return statement
    }

    func close() throws {
        for statement in statements.values { statement.finalize() }
        statements = [:]
        try connection.close()
    }
}

/// What a save changed, by identifier: the notification a context posts after it saved, which merging contexts
/// apply (Core Data's `NSManagedObjectContextDidSave`, SwiftData's `ModelContext.didSave`).
package struct ContextDidSave: Sendable {
    package var inserted: [PersistentIdentifier]
    package var updated: [PersistentIdentifier]
    package var deleted: [PersistentIdentifier]
}
