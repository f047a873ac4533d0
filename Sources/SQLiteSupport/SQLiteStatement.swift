import CSQLite
import Foundation

/// A prepared statement, reset and reused for every execution.
public final class SQLiteStatement {
    public let handle: OpaquePointer
    public unowned let connection: SQLiteConnection

    init(handle: OpaquePointer, connection: SQLiteConnection) {
        self.handle = handle
        self.connection = connection
    }

    private var isFinalized = false

    deinit { finalize() }

    /// Releases the statement; a connection closes only once all its statements are finalized.
    public func finalize() {
        guard !isFinalized else { return }
        isFinalized = true
        sqlite3_finalize(handle)
    }

    @inlinable @inline(__always) public func bind(_ value: Int64, at index: Int32) {
        sqlite3_bind_int64(handle, index, value)
    }

    @inlinable @inline(__always) public func bind(_ value: Bool, at index: Int32) {
        sqlite3_bind_int64(handle, index, value ? 1 : 0)
    }

    @inlinable @inline(__always) public func bind(_ value: Double, at index: Int32) {
        sqlite3_bind_double(handle, index, value)
    }

    @inlinable @inline(__always) public func bindNull(at index: Int32) {
        sqlite3_bind_null(handle, index)
    }

    /// Binds a copy of `text` (`SQLITE_TRANSIENT`), for statements whose texts cannot all be kept alive in
    /// nested `withText` calls until they step.
    @inlinable public func bindCopy(_ text: String, at index: Int32) {
        var text = text
        _ = text.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { characters in
                // A zero-length buffer may have no address; SQLite reads a nil pointer as NULL, not "".
                if let address = characters.baseAddress {
                    sqlite3_bind_text(
                        handle, index, address, Int32(characters.count),
                        unsafeBitCast(-1, to: sqlite3_destructor_type.self))
                } else {
                    sqlite3_bind_text(handle, index, "", 0, nil)
                }
            }
        }
    }

    /// Binds a copy of `bytes` as a blob.
    public func bindCopy(_ bytes: [UInt8], at index: Int32) {
        _ = bytes.withUnsafeBytes { buffer in
            sqlite3_bind_blob(
                handle, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(buffer.count),
                unsafeBitCast(-1, to: sqlite3_destructor_type.self))
        }
    }

    /// Steps once; true while it yields a row.
    @inlinable @inline(__always) public func step() throws -> Bool {
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW { return true }
        if code == SQLITE_DONE { return false }
        throw SQLiteError(
            code: code, message: String(cString: sqlite3_errmsg(connection.handle)),
            operation: String(cString: sqlite3_sql(handle)))
    }

    /// Runs `body` with the text bound at `index` for the duration of the call, without copying it.
    ///
    /// SQLITE_STATIC (a nil destructor) tells SQLite not to copy: the bytes stay valid until `body` returns,
    /// and `body` must step and reset the statement before then.
    @inlinable @inline(__always)
    public func withText<T>(_ text: String, at index: Int32, _ body: () throws -> T) rethrows -> T {
        var text = text
        return try text.withUTF8 { bytes in
            try bytes.withMemoryRebound(to: CChar.self) { characters in
                // A zero-length buffer may have no address; SQLite reads a nil pointer as NULL, not "".
                if let address = characters.baseAddress {
                    sqlite3_bind_text(handle, index, address, Int32(characters.count), nil)
                } else {
                    sqlite3_bind_text(handle, index, "", 0, nil)
                }
                return try body()
            }
        }
    }

    /// Clears the bindings' use and makes the statement ready for its next run.
    @inlinable @inline(__always) public func reset() {
        sqlite3_reset(handle)
    }

    @inlinable @inline(__always) public func int64(at column: Int32) -> Int64 {
        sqlite3_column_int64(handle, column)
    }
    @inlinable @inline(__always) public func double(at column: Int32) -> Double {
        sqlite3_column_double(handle, column)
    }
    @inlinable @inline(__always) public func isNull(at column: Int32) -> Bool {
        sqlite3_column_type(handle, column) == SQLITE_NULL
    }

    @inlinable @inline(__always) public func text(at column: Int32) -> String {
        guard let bytes = sqlite3_column_text(handle, column) else { return "" }
        return String(
            decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(handle, column))), as: UTF8.self
        )
    }

    public func blob(at column: Int32) -> [UInt8] {
        guard let bytes = sqlite3_column_blob(handle, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(handle, column))))
    }

    /// The column's bytes from `offset` on, copied once (a value behind a marker byte).
    public func blob(at column: Int32, from offset: Int) -> [UInt8] {
        guard let bytes = sqlite3_column_blob(handle, column) else { return [] }
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > offset else { return [] }
        return Array(UnsafeRawBufferPointer(start: bytes + offset, count: count - offset))
    }

    /// The column's first byte, or nil for an empty or NULL value.
    public func firstByte(at column: Int32) -> UInt8? {
        guard let bytes = sqlite3_column_blob(handle, column), sqlite3_column_bytes(handle, column) > 0 else {
            return nil
        }
        return bytes.load(as: UInt8.self)
    }
}
