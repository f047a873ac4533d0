import PersistenceBench
import SQLiteSupport

/// After a crash: SQLite's own check of every page, b-tree and index of `store.sqlite`.
extension SQLiteItemStore: SQLiteDatabaseStore {
    package func checkIntegrity() throws {
        try DamagedStore.checking(connection.path) {
            let (lines, pageSize) = try connection.integrityCheck()
            if let damage = DamagedStore.sqlite(file: connection.path, integrityCheck: lines, pageSize: pageSize) {
                throw damage
            }
        }
    }
}
