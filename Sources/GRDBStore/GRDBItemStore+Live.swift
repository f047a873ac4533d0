import GRDB
import PersistenceBench

extension GRDBItemStore: ConcurrentReadStore {
    /// The pool itself: `item(id:)` is a `database.read`, which runs on one of the pool's reader connections while
    /// `database.write` commits on the writer, as SQLiteData reads and writes.
    package func makeConcurrentReader() throws -> any QueryReader { PoolReader(store: self) }
}

/// Reads through the store's `DatabasePool`, which serves any thread.
private final class PoolReader: QueryReader {
    private let store: GRDBItemStore

    init(store: GRDBItemStore) { self.store = store }

    func item(id: Int64) throws -> Item? { try store.item(id: id) }

    func page(_ query: ItemPageQuery) throws -> [Item] { try store.page(query) }

    func search(_ search: TitleSearch) throws -> TitleSearchAnswer { try store.search(search) }

    func close() throws {}
}

extension GRDBItemStore: SnapshotPinningStore {
    /// GRDB's `DatabaseSnapshot` of the pool: a reader connection of its own whose read transaction stays open for
    /// the snapshot's life, as an app that keeps one does.
    ///
    /// A `DatabaseQueue` has one connection, which a read held open would keep from every write: `grdb+queue` has no
    /// snapshot to pin, and says so.
    package func pinSnapshot() throws -> any ItemReader {
        guard let pool = database as? DatabasePool else {
            throw BenchError(
                "a DatabaseQueue has one connection, and a read held open on it would hold back every write: it has "
                    + "no snapshot to pin (pinned-reader needs a DatabasePool)")
        }
        return SnapshotReader(store: self, snapshot: try pool.makeSnapshot())
    }
}

/// Lookups in a `DatabaseSnapshot`, released with it.
private final class SnapshotReader: ItemReader {
    private let store: GRDBItemStore
    private var snapshot: DatabaseSnapshot?

    init(store: GRDBItemStore, snapshot: DatabaseSnapshot) {
        self.store = store
        self.snapshot = snapshot
    }

    func item(id: Int64) throws -> Item? {
        guard let snapshot else { throw BenchError("reading a released snapshot") }
        return try snapshot.read { db in try store.item(id: id, in: db) }
    }

    /// GRDB ends the snapshot's transaction and closes its connection when the snapshot is released.
    func close() throws { snapshot = nil }
}
