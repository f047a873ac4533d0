import PersistenceBench
import SQLiteSupport

/// After a crash: SQLite's check of the file, then Core Data's own invariant: no entity's rows use a primary key
/// above the highest one `Z_PRIMARYKEY` handed out (the next insert would collide with a stored row).
extension ORMItemStore: SQLiteDatabaseStore {
    package func checkIntegrity() throws {
        try DamagedStore.checking(container.connection.path) {
            let (lines, pageSize) = try container.connection.integrityCheck()
            if let damage = DamagedStore.sqlite(
                file: container.connection.path, integrityCheck: lines, pageSize: pageSize)
            {
                throw damage
            }
            for entity in container.model.entities {
                var handedOut: Int64 = 0
                try container.query("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?", [.integer(entity.number)]) {
                    handedOut = $0.int64(at: 0)
                }
                var highest: Int64 = 0
                try container.query("SELECT COALESCE(MAX(Z_PK), 0) FROM \(entity.table)", []) {
                    highest = $0.int64(at: 0)
                }
                guard highest <= handedOut else {
                    throw DamagedStore(
                        file: container.connection.path, place: "table \(entity.table)",
                        problem: "Z_PK \(highest) is above Z_PRIMARYKEY's Z_MAX \(handedOut)")
                }
            }
        }
    }
}
