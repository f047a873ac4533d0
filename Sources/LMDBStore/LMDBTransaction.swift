import CLMDB
import Foundation

/// A live transaction, valid only inside the `read` or `write` body that received it.
///
/// Bytes returned by `value(in:forKey:)` and cursors point into the memory map: they are valid until the next
/// change in this transaction or its end, whichever comes first.
package struct LMDBTransaction {
    let pointer: OpaquePointer

    /// The value stored under `key`, or nil.
    package func value(in database: LMDBDatabase, forKey key: UnsafeRawBufferPointer) throws
        -> UnsafeRawBufferPointer?
    {
        var keyValue = MDB_val(key)
        var value = MDB_val()
        let code = mdb_get(pointer, database.handle, &keyValue, &value)
        if code == MDB_NOTFOUND { return nil }
        try LMDBError.check(code, "mdb_get from \(database.name)")
        return UnsafeRawBufferPointer(value)
    }

    /// Stores `value` under `key`.
    ///
    /// - Parameter flags: `MDB_NOOVERWRITE`, `MDB_APPEND`, `MDB_NODUPDATA`, … as the C constants.
    package func put(
        in database: LMDBDatabase, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, flags: Int32 = 0
    ) throws {
        var keyValue = MDB_val(key)
        var dataValue = MDB_val(value)
        try LMDBError.check(
            mdb_put(pointer, database.handle, &keyValue, &dataValue, UInt32(flags)), "mdb_put into \(database.name)")
    }

    /// Makes room for `count` bytes under `key` and returns it, for the caller to fill before any other change
    /// (`MDB_RESERVE`: the value is written straight into the map, never into a buffer first).
    ///
    /// Not for `MDB_DUPSORT` databases.
    package func reserve(in database: LMDBDatabase, key: UnsafeRawBufferPointer, count: Int, flags: Int32 = 0) throws
        -> UnsafeMutableRawBufferPointer
    {
        var keyValue = MDB_val(key)
        var dataValue = MDB_val(mv_size: count, mv_data: nil)
        try LMDBError.check(
            mdb_put(pointer, database.handle, &keyValue, &dataValue, UInt32(flags | MDB_RESERVE)),
            "mdb_put(MDB_RESERVE) into \(database.name)")
        return UnsafeMutableRawBufferPointer(start: dataValue.mv_data, count: count)
    }

    /// Deletes `key` (with every duplicate), or only the pair `key`/`value` when `value` is given.
    ///
    /// - Returns: false when there was nothing to delete.
    @discardableResult
    package func delete(in database: LMDBDatabase, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer? = nil)
        throws -> Bool
    {
        var keyValue = MDB_val(key)
        var code: Int32
        if let value {
            var dataValue = MDB_val(value)
            code = mdb_del(pointer, database.handle, &keyValue, &dataValue)
        } else {
            code = mdb_del(pointer, database.handle, &keyValue, nil)
        }
        if code == MDB_NOTFOUND { return false }
        try LMDBError.check(code, "mdb_del from \(database.name)")
        return true
    }

    /// Runs `body` with a cursor on `database`, closed when `body` returns or throws.
    package func withCursor<T>(on database: LMDBDatabase, _ body: (LMDBCursor) throws -> T) throws -> T {
        var cursor: OpaquePointer?
        try LMDBError.check(mdb_cursor_open(pointer, database.handle, &cursor), "mdb_cursor_open on \(database.name)")
        guard let cursor else { throw LMDBError(ENOMEM, operation: "mdb_cursor_open on \(database.name)") }
        defer { mdb_cursor_close(cursor) }
        return try body(LMDBCursor(pointer: cursor, database: database))
    }
}

/// A cursor, valid only inside the `withCursor` body that received it.
package struct LMDBCursor {
    let pointer: OpaquePointer
    let database: LMDBDatabase

    /// One key/value pair under the cursor; the bytes point into the map.
    package struct Entry {
        package let key: UnsafeRawBufferPointer
        package let value: UnsafeRawBufferPointer
    }

    /// Moves the cursor (`MDB_FIRST`, `MDB_NEXT`, `MDB_SET` with a `key`, …) and returns the entry it lands on,
    /// or nil when there is none (`MDB_NOTFOUND`).
    package func move(_ operation: MDB_cursor_op, key: UnsafeRawBufferPointer? = nil) throws -> Entry? {
        var keyValue = key.map(MDB_val.init) ?? MDB_val()
        var value = MDB_val()
        let code = mdb_cursor_get(pointer, &keyValue, &value, operation)
        if code == MDB_NOTFOUND { return nil }
        try LMDBError.check(code, "mdb_cursor_get(op \(operation.rawValue)) on \(database.name)")
        return Entry(key: UnsafeRawBufferPointer(keyValue), value: UnsafeRawBufferPointer(value))
    }

    /// How many values the current key holds (`MDB_DUPSORT` databases).
    package func duplicateCount() throws -> Int {
        var count = 0
        try LMDBError.check(mdb_cursor_count(pointer, &count), "mdb_cursor_count on \(database.name)")
        return count
    }
}

extension MDB_val {
    /// A view of `bytes` for LMDB, which never writes through a key or value it is given.
    init(_ bytes: UnsafeRawBufferPointer) {
        self.init(mv_size: bytes.count, mv_data: UnsafeMutableRawPointer(mutating: bytes.baseAddress))
    }
}

extension UnsafeRawBufferPointer {
    init(_ value: MDB_val) {
        self.init(start: value.mv_data, count: value.mv_size)
    }
}

extension LMDBTransaction {
    /// How many entries `database` holds (`mdb_stat`): O(1), kept in the database's root.
    package func entryCount(in database: LMDBDatabase) throws -> Int {
        var stat = MDB_stat()
        try LMDBError.check(mdb_stat(pointer, database.handle, &stat), "mdb_stat on \(database.name)")
        return stat.ms_entries
    }
}
