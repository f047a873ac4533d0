import PersistenceBench
import SQLiteSupport

extension SQLiteItemStore: FastBuildingStore {
    package func startBuild(cacheBytes: Int) throws { try connection.startBuild(cacheBytes: cacheBytes) }

    package func finishBuild() throws { try connection.finishBuild() }
}
