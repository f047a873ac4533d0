import Foundation
import SQLiteSupport

/// Persistent history (`SwiftDataMechanisms.historyTracking`) in Core Data's tables: `ATRANSACTION`, one row per
/// save, and `ACHANGE`, one row per changed object, indexed by transaction as Core Data indexes it.
extension ModelContainer {
    static let historySchema = [
        "CREATE TABLE IF NOT EXISTS ATRANSACTION ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, "
            + "ZTIMESTAMP FLOAT, ZAUTHOR VARCHAR, ZBUNDLEID VARCHAR, ZCONTEXTNAME VARCHAR, ZPROCESSID VARCHAR )",
        "CREATE INDEX IF NOT EXISTS ATRANSACTION_ZTIMESTAMP_INDEX ON ATRANSACTION (ZTIMESTAMP)",
        "CREATE TABLE IF NOT EXISTS ACHANGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, "
            + "ZCHANGETYPE INTEGER, ZENTITY INTEGER, ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER, ZCOLUMNS BLOB, "
            + "ZTOMBSTONE0 )",
        "CREATE INDEX IF NOT EXISTS ACHANGE_ZTRANSACTIONID_INDEX ON ACHANGE (ZTRANSACTIONID)",
    ]

    /// The kinds of change, as `NSPersistentHistoryChangeType` numbers them.
    enum HistoryChange: Int64 {
        case insert = 0
        case update = 1
        case delete = 2
    }

    /// Writes one save's history inside its transaction: the transaction row, then one change row per object
    /// (`columns`: an update's changed-column mask; a deleted row keeps its first unique attribute as its
    /// tombstone).
    func recordHistory(_ changes: [(object: ManagedObject, change: HistoryChange, columns: UInt64)]) throws {
        let transaction = try statement(
            "INSERT INTO ATRANSACTION (Z_ENT, Z_OPT, ZTIMESTAMP, ZCONTEXTNAME, ZPROCESSID) VALUES (1, 1, ?, ?, ?) "
                + "RETURNING Z_PK")
        defer { transaction.reset() }
        transaction.bind(Date().timeIntervalSinceReferenceDate, at: 1)
        transaction.bindCopy("PersistenceBench", at: 2)
        transaction.bindCopy(Self.processID, at: 3)
        guard try transaction.step() else {
            throw SQLiteError(code: 1, message: "no row", operation: "INSERT INTO ATRANSACTION … RETURNING Z_PK")
        }
        let transactionID = transaction.int64(at: 0)
        let change = try statement(
            "INSERT INTO ACHANGE (Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS, "
                + "ZTOMBSTONE0) VALUES (2, 1, ?, ?, ?, ?, ?, ?)")
        for (object, kind, columns) in changes {
            defer { change.reset() }
            change.bind(kind.rawValue, at: 1)
            change.bind(object.entity.number, at: 2)
            change.bind(object.primaryKey, at: 3)
            change.bind(transactionID, at: 4)
            if kind == .update {
                change.bindCopy(withUnsafeBytes(of: columns.littleEndian, Array.init), at: 5)
            } else {
                change.bindNull(at: 5)
            }
            if kind == .delete, let unique = object.entity.uniqueColumns.first {
                if object.isFault { object.fireFault() }
                bind(object.values[unique], at: 6, to: change)
            } else {
                change.bindNull(at: 6)
            }
            _ = try change.step()
        }
    }

    private static let processID = String(ProcessInfo.processInfo.processIdentifier)
}
