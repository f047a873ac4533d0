import GRDBStore
import LMDBStore
import MemoryStore
import ORMStore
import PackedStore
import PersistenceBench
import SQLiteStore

/// Every store this build has, in the order reports list them: the one list the tool, the tests and the
/// package-benchmark suites share.
public enum StoreCatalog {
    public static let all: [StoreKind] =
        SQLiteItemStore.kinds + GRDBItemStore.kinds + ORMItemStore.kinds + LMDBItemStore.kinds
        + PackedItemStore.kinds + MemoryItemStore.kinds

    public static func kind(named name: String) -> StoreKind? { all.first { $0.name == name } }
}
