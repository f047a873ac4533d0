import Foundation
import PersistenceBench
import SQLiteSupport

extension SQLiteItemStore: ConcurrentReadStore {
    /// A second connection to the same file, for the reader's thread: in WAL mode it reads the last commit while
    /// this connection writes, and neither waits for the other.
    package func makeConcurrentReader() throws -> any QueryReader {
        try openSecondConnection()
    }

    /// The store opened again on the same file, with the same settings: a connection of its own for another
    /// thread, with every statement of the store.
    func openSecondConnection() throws -> SQLiteItemStore {
        try SQLiteItemStore(
            directory: URL(fileURLWithPath: connection.path).deletingLastPathComponent(), tuned: tuned,
            synchronous: synchronous, readsInTransactions: readsInTransactions)
    }
}

/// A second store on the file reads items, pages and keystrokes as the store does.
extension SQLiteItemStore: QueryReader {}

extension SQLiteItemStore: SnapshotPinningStore {
    /// A second connection with a read transaction begun and its snapshot taken (SQLite takes it at the first
    /// read): every lookup answers from it until `close` ends the transaction.
    ///
    /// Meanwhile a checkpoint copies no frame committed after it, and the WAL cannot start over from its beginning.
    package func pinSnapshot() throws -> any ItemReader {
        let reader = try openSecondConnection()
        try reader.connection.execute("BEGIN DEFERRED; SELECT COUNT(*) FROM item WHERE id = 0")
        return PinnedReader(reader)
    }
}

/// Lookups inside the read transaction its second connection holds.
private final class PinnedReader: ItemReader {
    private let store: SQLiteItemStore

    init(_ store: SQLiteItemStore) { self.store = store }

    func item(id: Int64) throws -> Item? { try store.lookUp(id) }

    func close() throws {
        try store.connection.execute("COMMIT")
        try store.close()
    }
}
