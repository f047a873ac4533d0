import PersistenceBench
import SQLiteSupport

/// An untimed build on the writer connection of each container (the items' and a record table's, half the build's
/// page cache each), with `sqlite`'s build settings (`SQLiteBuild`).
extension ORMItemStore: FastBuildingStore {
    package func startBuild(cacheBytes: Int) throws {
        buildCacheBytes = cacheBytes / 2
        for container in containers { try container.connection.startBuild(cacheBytes: cacheBytes / 2) }
    }

    package func finishBuild() throws {
        buildCacheBytes = nil
        for container in containers { try container.connection.finishBuild() }
    }

    private var containers: [ModelContainer] { [container] + (recordTable.map { [$0.container] } ?? []) }
}
