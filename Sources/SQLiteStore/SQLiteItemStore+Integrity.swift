import PersistenceBench

/// After a crash: SQLite's own check of every page, b-tree and index of `store.sqlite`.
extension SQLiteItemStore: IntegrityCheckingStore {
    public func checkIntegrity() throws {
        let problems = try connection.integrityProblems()
        guard problems.isEmpty else {
            throw DamagedStore(file: connection.path, problem: problems.joined(separator: "; "))
        }
    }
}
