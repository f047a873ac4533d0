/// A store over an engine with a C API of its own (SQLite, LMDB), and that API with nothing else: the floor its own
/// `insert` and `get` are held against (`engine-insert`, `engine-get`).
///
/// The floor writes the same records, keys and index entries as the store, in the same transactions and with the same
/// durability, but from bytes encoded before the timer; it reads a record by its key and touches its bytes without
/// building an `Item`. How far a store is from its floor is what its own layer (encoding, decoding, allocation, the
/// library's wrappers) costs.
package protocol EngineFloorStore: ItemStore {
    /// What the floor calls, for the report: "sqlite3_bind_* and sqlite3_step of a prepared INSERT".
    static var engineFloorCalls: String { get }
    /// `batch` in the engine's own form (encoded keys, values and index entries), untimed.
    func engineRecords(_ batch: [Item]) throws -> EngineRecords
    /// Writes `records` in one transaction through the C API alone, durable as the store's commits are (timed).
    func engineInsert(_ records: EngineRecords) throws
    /// Looks `id` up through the C API alone, in one read as `item(id:)` asks it, and returns the id read back
    /// from the record (nil when there is none), its bytes touched but not decoded (timed).
    func engineLookUp(_ id: Int64) throws -> Int64?
}

/// A batch in an engine's own form, opaque to the workload: the store that made it reads it back.
package struct EngineRecords: @unchecked Sendable {
    package let count: Int
    package let payload: Any

    package init(count: Int, payload: Any) {
        self.count = count
        self.payload = payload
    }
}
