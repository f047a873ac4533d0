import CLMDB
import PersistenceBench

/// An untimed build: commits without a sync (`MDB_NOSYNC`, set on the open environment), then one sync of the map
/// at its end. The map is the page cache: there is no cache to enlarge.
extension LMDBItemStore: FastBuildingStore {
    package func startBuild(cacheBytes: Int) throws {
        let handle = try environment.environment()
        try LMDBError.check(mdb_env_set_flags(handle, UInt32(MDB_NOSYNC), 1), "mdb_env_set_flags(MDB_NOSYNC, 1)")
    }

    package func finishBuild() throws {
        let handle = try environment.environment()
        try LMDBError.check(mdb_env_set_flags(handle, UInt32(MDB_NOSYNC), 0), "mdb_env_set_flags(MDB_NOSYNC, 0)")
        try LMDBError.check(mdb_env_sync(handle, 1), "mdb_env_sync(\(environment.path))")
    }
}
