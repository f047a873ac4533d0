import GRDB
import PersistenceBench

/// After a crash: SQLite's own check of every page, b-tree and index, through the pool.
extension GRDBItemStore: IntegrityCheckingStore {
    public func checkIntegrity() throws {
        let problems = try pool.read { try String.fetchAll($0, sql: "PRAGMA integrity_check(10)") }
        guard problems == ["ok"] else {
            throw DamagedStore(file: pool.path, problem: problems.joined(separator: "; "))
        }
    }
}
