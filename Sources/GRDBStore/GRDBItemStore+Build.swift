import GRDB
import PersistenceBench
import SQLiteSupport

/// An untimed build on the writer connection, with `sqlite`'s build settings (`SQLiteBuild`); the pool's readers
/// write nothing.
extension GRDBItemStore: FastBuildingStore {
    package func startBuild(cacheBytes: Int) throws {
        guard settingsBeforeBuild == nil else { return }
        try database.writeWithoutTransaction { db in
            settingsBeforeBuild = try SQLiteBuild.start(
                cacheBytes: cacheBytes, read: { try String.fetchOne(db, sql: "PRAGMA \($0)") ?? "" },
                execute: { try db.execute(sql: $0) })
        }
    }

    package func finishBuild() throws {
        guard let settings = settingsBeforeBuild else { return }
        settingsBeforeBuild = nil
        try database.writeWithoutTransaction { db in
            try SQLiteBuild.finish(restoring: settings, path: database.path, execute: { try db.execute(sql: $0) })
        }
    }
}
