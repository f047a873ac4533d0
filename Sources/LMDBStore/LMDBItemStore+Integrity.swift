import CLMDB
import PersistenceBench

/// After a crash: a cursor walk of every database in the environment (each page reached, each entry counted
/// against the count in its root), every item decoded, and the title index holding one entry per item.
extension LMDBItemStore: IntegrityCheckingStore {
    package func checkIntegrity() throws {
        let file = environment.path + "/data.mdb"
        try DamagedStore.checking(file) {
            try environment.read { transaction in
                // The main database (handle 1) lists the named ones.
                var names: [String] = []
                let main = LMDBDatabase(name: "(main)", handle: 1)
                try walk(main, in: transaction) { entry in
                    names.append(String(decoding: entry.key, as: UTF8.self))
                }
                for name in names {
                    var handle: MDB_dbi = 0
                    try LMDBError.check(mdb_dbi_open(transaction.pointer, name, 0, &handle), "mdb_dbi_open(\(name))")
                    try walk(LMDBDatabase(name: name, handle: handle), in: transaction) { _ in }
                }
                var itemCount = 0
                try walk(self.items, in: transaction) { entry in
                    _ = try ItemCodec.decode(id: ItemCodec.id(fromKey: entry.key), from: entry.value)
                    itemCount += 1
                }
                let indexed = try transaction.entryCount(in: titleIndex)
                guard indexed == itemCount else {
                    throw DamagedStore(
                        file: file, place: "database \(titleIndex.name)",
                        problem: "\(indexed) index entries for \(itemCount) items")
                }
            }
        }
    }

    /// Visits every entry of `database` (every duplicate too) and checks the number against `mdb_stat`'s.
    private func walk(
        _ database: LMDBDatabase, in transaction: LMDBTransaction, _ body: (LMDBCursor.Entry) throws -> Void
    ) throws {
        let visited = try transaction.withCursor(on: database) { cursor in
            var count = 0
            var entry = try cursor.move(MDB_FIRST)
            while let current = entry {
                try body(current)
                count += 1
                entry = try cursor.move(MDB_NEXT)
            }
            return count
        }
        let recorded = try transaction.entryCount(in: database)
        guard visited == recorded else {
            throw DamagedStore(
                file: environment.path + "/data.mdb", place: "database \(database.name)",
                problem: "a walk found \(visited) entries, its root records \(recorded)")
        }
    }
}
