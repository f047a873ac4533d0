import CSQLite
import PersistenceBench
import SQLiteSupport

/// `sqlite`'s engine floor (`EngineFloorStore`): its own prepared INSERT and lookup statements, bound from values
/// converted before the timer (text as UTF-8 bytes, bound `SQLITE_STATIC`), in the same transactions and with the
/// same pragmas; a lookup steps its row and reads the id and the lengths of its text columns, building no `Item`.
extension SQLiteItemStore: EngineFloorStore {
    package static var engineFloorCalls: String {
        "sqlite3_bind_* and sqlite3_step of the store's prepared statements, text bound SQLITE_STATIC"
    }

    /// One item's columns as SQLite is handed them.
    struct EngineRow {
        var id: Int64
        var title: [UInt8]
        var notes: [UInt8]
        var isInStock: Int64
        var priority: Int64?
        var price: Double
        var createdAt: Double
    }

    package func engineRecords(_ batch: [Item]) -> EngineRecords {
        EngineRecords(
            count: batch.count,
            payload: batch.map { item in
                EngineRow(
                    id: item.id, title: Array(item.title.utf8), notes: Array(item.notes.utf8),
                    isInStock: item.isInStock ? 1 : 0, priority: item.priority.map { Int64($0.rawValue) },
                    price: item.price, createdAt: item.createdAt.timeIntervalSince1970)
            })
    }

    package func engineInsert(_ records: EngineRecords) throws {
        guard let rows = records.payload as? [EngineRow] else { throw BenchError("engine records of another store") }
        let statement = insertStatement.handle
        let isStatic = unsafeBitCast(0, to: sqlite3_destructor_type.self)
        try connection.transaction {
            for row in rows {
                sqlite3_bind_int64(statement, 1, row.id)
                sqlite3_bind_int64(statement, 4, row.isInStock)
                if let priority = row.priority {
                    sqlite3_bind_int64(statement, 5, priority)
                } else {
                    sqlite3_bind_null(statement, 5)
                }
                sqlite3_bind_double(statement, 6, row.price)
                sqlite3_bind_double(statement, 7, row.createdAt)
                let code = row.title.withUnsafeBufferPointer { title in
                    row.notes.withUnsafeBufferPointer { notes in
                        sqlite3_bind_text(statement, 2, title.baseAddress, Int32(title.count), isStatic)
                        sqlite3_bind_text(statement, 3, notes.baseAddress, Int32(notes.count), isStatic)
                        defer { sqlite3_reset(statement) }
                        return sqlite3_step(statement)
                    }
                }
                guard code == SQLITE_DONE else {
                    throw BenchError("engine-insert: sqlite3_step returned \(code) for item \(row.id)")
                }
            }
        }
    }

    package func engineLookUp(_ id: Int64) throws -> Int64? {
        let statement = selectByID.handle
        sqlite3_bind_int64(statement, 1, id)
        defer { sqlite3_reset(statement) }
        switch sqlite3_step(statement) {
        case SQLITE_ROW:
            // The text columns' bytes and lengths, as a reader that uses them makes SQLite produce them.
            _ = sqlite3_column_text(statement, 1)
            _ = sqlite3_column_bytes(statement, 1)
            _ = sqlite3_column_text(statement, 2)
            _ = sqlite3_column_bytes(statement, 2)
            return sqlite3_column_int64(statement, 0)
        case SQLITE_DONE: return nil
        case let code: throw BenchError("engine-get: sqlite3_step returned \(code) for item \(id)")
        }
    }
}
