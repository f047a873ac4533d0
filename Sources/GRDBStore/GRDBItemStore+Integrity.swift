import GRDB
import PersistenceBench
import SQLiteSupport

/// After a crash: SQLite's own check of every page, b-tree and index, through the pool.
extension GRDBItemStore: SQLiteDatabaseStore {
    package func checkIntegrity() throws {
        try DamagedStore.checking(database.path) {
            let (lines, pageSize) = try database.read { db in
                (
                    try String.fetchAll(db, sql: "PRAGMA integrity_check(10)"),
                    try Int.fetchOne(db, sql: "PRAGMA page_size")
                )
            }
            if let damage = DamagedStore.sqlite(file: database.path, integrityCheck: lines, pageSize: pageSize ?? 0) {
                throw damage
            }
        }
    }
}
