import CSQLite
import Foundation
import PersistenceBench

/// An error from the SQLite C API, with SQLite's message and the statement or operation that failed.
public struct SQLiteError: Error, CustomStringConvertible {
    public let code: Int32
    public let message: String
    public let operation: String

    public init(code: Int32, message: String, operation: String) {
        self.code = code
        self.message = message
        self.operation = operation
    }

    public var description: String { "SQLite error \(code) (\(message)) in \(operation)" }
}

/// One SQLite connection, used from one thread: the part of the C API that the SQLite-based stores share.
///
/// The hot calls are `@inlinable`, so that a store's loop over `sqlite3_step` and the column getters compiles
/// to the same code as if the wrapper lived in the store's own module. This file stays `public` where the rest of
/// the store targets are `package`: as `@inlinable package` its calls cost `sqlite`'s insert 1.0 % more
/// instructions and its durable insert 1.3 % (callgrind, 2k items, Swift 6.3.1).
public final class SQLiteConnection {
    /// How long a write or a checkpoint that finds another connection in its way waits for it before it fails
    /// (`busy_timeout`): every SQLite-based store's connections, GRDB's too.
    public static let busyTimeoutSeconds: Int32 = 5

    /// How an SQLite-based store's writes wait for another connection's lock, for `LockWaitCountingStore`: a
    /// request that found the lock held is counted once, its time the busy handler's sleeps until it got it.
    package static var lockWaitPolicy: String {
        "busy_timeout \(busyTimeoutSeconds) s (a request that found the lock held, its sleeps)"
    }

    /// The connection's `busy_timeout`, counted (`BusyTimeout`): its tally is the store's `lockWaits`.
    package let busyTimeout: BusyTimeout

    public let handle: OpaquePointer
    public let path: String
    /// Called after every `transaction` whose COMMIT returned: the moment its changes are visible to other
    /// connections (SQLite's commit hook runs before that).
    public var didCommit: (() -> Void)?
    /// The SQL that puts back the settings an untimed build changed (`startBuild(cacheBytes:)`), while it runs.
    var settingsBeforeBuild: String?

    /// Opens the connection in SQLite's multi-thread mode (`SQLITE_OPEN_NOMUTEX`): no mutex around each call, as
    /// GRDB 7 opens every connection of its queues and pools (its `SerializedDatabase` sets `.multiThread`), so
    /// that every SQLite-based store runs in the same mode.
    ///
    /// `threadingMode` reads it back.
    public init(path: String) throws {
        busyTimeout = BusyTimeout(milliseconds: Int(Self.busyTimeoutSeconds) * 1_000)
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
            sqlite3_close_v2(handle)
            throw SQLiteError(code: code, message: message, operation: "open \(path)")
        }
        self.handle = handle
        self.path = path
        // With a second connection on the file (a reader, an observer), a write can find the log's index briefly
        // locked by a reader that checks it; it waits and retries rather than fails, as every app with two
        // connections sets it. A connection alone on its file never waits. SQLite's own timeout handler, counted.
        sqlite3_busy_handler(
            handle,
            { context, tries in
                guard let context else { return 0 }
                return Unmanaged<BusyTimeout>.fromOpaque(context).takeUnretainedValue().retry(afterTries: Int(tries))
                    ? 1 : 0
            }, Unmanaged.passUnretained(busyTimeout).toOpaque())
    }

    /// Runs SQL with no results (schema, pragmas, transactions).
    public func execute(_ sql: String) throws {
        try check(sqlite3_exec(handle, sql, nil, nil, nil), sql)
    }

    /// A statement prepared for reuse (`SQLITE_PREPARE_PERSISTENT`).
    public func prepare(_ sql: String) throws -> SQLiteStatement {
        var statement: OpaquePointer?
        try check(sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil), sql)
        guard let statement else { throw SQLiteError(code: SQLITE_MISUSE, message: "empty statement", operation: sql) }
        return SQLiteStatement(handle: statement, connection: self)
    }

    /// Runs `body` in one write transaction, rolled back if it throws.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            didCommit?()
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Runs `body` in one read transaction (`BEGIN DEFERRED` … `COMMIT`, each compiled by `sqlite3_exec` on every
    /// call, as a GRDB read does): its statements read one snapshot of the database.
    public func readTransaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN DEFERRED")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Copies every frame of the write-ahead log into the database, syncs it and truncates the log to zero bytes
    /// (`PRAGMA wal_checkpoint(TRUNCATE)`): what closing the last connection does.
    ///
    /// Throws if a reader kept the checkpoint from finishing.
    public func checkpoint() throws {
        let statement = try prepare("PRAGMA wal_checkpoint(TRUNCATE)")
        defer { statement.finalize() }
        guard try statement.step() else {
            throw SQLiteError(code: SQLITE_ERROR, message: "no row", operation: "checkpoint")
        }
        guard statement.int64(at: 0) == 0 else {
            throw SQLiteError(
                code: SQLITE_BUSY, message: "a reader kept the checkpoint from finishing",
                operation: "PRAGMA wal_checkpoint(TRUNCATE) on \(path)")
        }
    }

    /// What `PRAGMA integrity_check` reports (at most `limit` lines; "ok" when it finds nothing), and the page
    /// size, to place a damaged page in the file.
    public func integrityCheck(limit: Int = 10) throws -> (lines: [String], pageSize: Int) {
        var lines: [String] = []
        var pageSize = 0
        for (sql, isCheck) in [("PRAGMA integrity_check(\(limit))", true), ("PRAGMA page_size", false)] {
            let statement = try prepare(sql)
            defer { statement.finalize() }
            while try statement.step() {
                if isCheck { lines.append(statement.text(at: 0)) } else { pageSize = Int(statement.int64(at: 0)) }
            }
        }
        return (lines, pageSize)
    }

    /// Defines a deterministic SQL function of `argumentCount` arguments on this connection, answering an integer
    /// (a predicate answers 0 or 1): `body` runs for every row a statement calls it on, as an app's or a
    /// framework's own function does (Core Data registers `NSCoreDataStringSearch` so on each connection).
    public func createFunction(
        _ name: String, argumentCount: Int32, _ body: @escaping (SQLiteFunctionArguments) -> Int64
    ) throws {
        let box = Unmanaged.passRetained(SQLiteFunctionBox(body)).toOpaque()
        let code = sqlite3_create_function_v2(
            handle, name, argumentCount, SQLITE_UTF8 | SQLITE_DETERMINISTIC, box,
            { context, count, values in
                let box = Unmanaged<SQLiteFunctionBox>.fromOpaque(sqlite3_user_data(context)).takeUnretainedValue()
                sqlite3_result_int64(context, box.body(SQLiteFunctionArguments(values: values, count: Int(count))))
            }, nil, nil, { box in box.map { Unmanaged<SQLiteFunctionBox>.fromOpaque($0).release() } })
        try check(code, "define SQL function \(name)")
    }

    /// The connection's threading mode as SQLite runs it (`sqlite3_db_mutex`: nil unless serialized):
    /// "multi-thread" or "serialized".
    public var threadingMode: String { sqlite3_db_mutex(handle) == nil ? "multi-thread" : "serialized" }

    /// Rows changed by the last INSERT, UPDATE or DELETE on this connection.
    @inlinable public var changes: Int { Int(sqlite3_changes(handle)) }

    public func close() throws {
        try check(sqlite3_close(handle), "close \(path)")
    }

    @inlinable @inline(__always)
    public func check(_ code: Int32, _ operation: @autoclosure () -> String) throws {
        guard code == SQLITE_OK || code == SQLITE_DONE || code == SQLITE_ROW else {
            throw SQLiteError(code: code, message: String(cString: sqlite3_errmsg(handle)), operation: operation())
        }
    }

    /// The linked library's version, "SQLite 3.40.1".
    public static var engine: String { "SQLite \(String(cString: sqlite3_libversion()))" }

    /// The settings of the SQLite stores (`sqlite`, `orm`; `grdb` sets the same): multi-thread mode, WAL, every
    /// commit synced, SQLite's default page cache and no memory map.
    public static let defaultConfiguration =
        threadingConfiguration
        + " journal_mode=WAL synchronous=FULL cache_size=-2000 (2 MiB, the default) mmap_size=0 (the default) "
        + "temp_store=DEFAULT"

    /// The threading mode every SQLite-based store runs in, as its configuration line states it.
    public static let threadingConfiguration =
        "threading=multi-thread (SQLITE_OPEN_NOMUTEX, as GRDB opens connections)"

    /// The largest `mmap_size` this build of SQLite accepts (`SQLITE_MAX_MMAP_SIZE`); a larger request is capped.
    public static var maximumMapSize: Int64 {
        var index: Int32 = 0
        while let option = sqlite3_compileoption_get(index) {
            let text = String(cString: option)
            if text.hasPrefix("MAX_MMAP_SIZE="),
                let value = Int64(
                    text.dropFirst(14).replacing("0x", with: ""),
                    radix: text.contains("0x") ? 16 : 10)
            {
                return value
            }
            index += 1
        }
        return 0x7fff_0000  // SQLite's own default
    }
}

/// What a SQL function defined with `SQLiteConnection.createFunction` holds: its Swift body.
private final class SQLiteFunctionBox {
    let body: (SQLiteFunctionArguments) -> Int64
    init(_ body: @escaping (SQLiteFunctionArguments) -> Int64) { self.body = body }
}

/// The arguments of one call of a SQL function defined in Swift, valid during the call.
public struct SQLiteFunctionArguments {
    let values: UnsafeMutablePointer<OpaquePointer?>?
    public let count: Int

    public func int64(at index: Int) -> Int64 {
        guard index < count, let value = values?[index] else { return 0 }
        return sqlite3_value_int64(value)
    }

    /// The argument's UTF-8 bytes, not copied; nil for NULL.
    public func text(at index: Int) -> UnsafeBufferPointer<UInt8>? {
        guard index < count, let value = values?[index], sqlite3_value_type(value) != SQLITE_NULL,
            let bytes = sqlite3_value_text(value)
        else { return nil }
        return UnsafeBufferPointer(start: bytes, count: Int(sqlite3_value_bytes(value)))
    }
}
