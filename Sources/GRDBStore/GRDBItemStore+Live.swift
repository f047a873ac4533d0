import GRDB
import PersistenceBench

extension GRDBItemStore: ConcurrentReadStore {
    /// The pool itself: `item(id:)` is a `database.read`, which runs on one of the pool's reader connections while
    /// `database.write` commits on the writer, as SQLiteData reads and writes.
    package func makeConcurrentReader() throws -> any ItemReader { PoolReader(store: self) }
}

/// Reads through the store's `DatabasePool`, which serves any thread.
private final class PoolReader: ItemReader {
    private let store: GRDBItemStore

    init(store: GRDBItemStore) { self.store = store }

    func item(id: Int64) throws -> Item? { try store.item(id: id) }

    func close() throws {}
}
