import Foundation
import PersistenceBench
import SQLiteSupport

extension SQLiteItemStore: ConcurrentReadStore {
    /// A second connection to the same file, for the reader's thread: in WAL mode it reads the last commit while
    /// this connection writes, and neither waits for the other.
    package func makeConcurrentReader() throws -> any ItemReader {
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

/// A second store on the file reads items as the store does.
extension SQLiteItemStore: ItemReader {}
