import CLMDB

/// A failed LMDB call: the operation, its return code, and `mdb_strerror`'s message for that code.
package struct LMDBError: Error, CustomStringConvertible, Sendable {
    /// What was being done: "mdb_put into item", "decoding item 42".
    package let operation: String
    /// The LMDB return code (`MDB_NOTFOUND`, `MDB_MAP_FULL`, …) or an `errno` value.
    package let code: Int32
    /// `mdb_strerror(code)`, or what was wrong with a record that failed to decode.
    package let message: String

    init(_ code: Int32, operation: String) {
        self.operation = operation
        self.code = code
        message = String(cString: mdb_strerror(code))
    }

    /// A stored value that does not match the documented layout: `MDB_CORRUPTED` with what was wrong.
    static func corrupted(_ operation: String, _ problem: String) -> LMDBError {
        LMDBError(operation: operation, code: MDB_CORRUPTED, message: problem)
    }

    /// An error with its own message, for a code whose generic text would not say what went wrong.
    init(operation: String, code: Int32, message: String) {
        self.operation = operation
        self.code = code
        self.message = message
    }

    package var description: String { "LMDB: \(operation) failed (\(code)): \(message)" }

    /// Throws an `LMDBError` unless `code` is `MDB_SUCCESS`.
    @inline(__always)
    static func check(_ code: Int32, _ operation: @autoclosure () -> String) throws {
        if code != MDB_SUCCESS { throw LMDBError(code, operation: operation()) }
    }
}
