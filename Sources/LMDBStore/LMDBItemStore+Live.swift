import CLMDB
import Foundation
import PersistenceBench

extension LMDBItemStore: ConcurrentReadStore {
    /// A read transaction of the reader's own (`MDB_NOTLS` lets it live on any thread), renewed for every read: a
    /// reader sees the last commit and never waits for the writer, nor the writer for it.
    package func makeConcurrentReader() throws -> any ItemReader {
        LMDBItemReader(store: self, reader: LMDBReader(environment: environment))
    }
}

private final class LMDBItemReader: ItemReader {
    private let store: LMDBItemStore
    private let reader: LMDBReader

    init(store: LMDBItemStore, reader: LMDBReader) {
        self.store = store
        self.reader = reader
    }

    func item(id: Int64) throws -> Item? {
        try reader.read { try store.storedItem(id: id, in: $0) }
    }

    func close() throws { reader.close() }
}

/// Read-only transactions of one thread other than the environment's, beside the environment's writes.
///
/// Each read renews the reader's transaction (a snapshot of the last commit), runs, and resets it, holding the
/// environment's `resizeLock` to read meanwhile, so that a map resize waits for it.
final class LMDBReader {
    private let environment: LMDBEnvironment
    private var transaction: OpaquePointer?

    init(environment: LMDBEnvironment) { self.environment = environment }

    func read<T>(_ body: (LMDBTransaction) throws -> T) throws -> T {
        try environment.resizeLock.reading {
            if let transaction {
                try LMDBError.check(mdb_txn_renew(transaction), "mdb_txn_renew")
            } else {
                var created: OpaquePointer?
                try LMDBError.check(
                    mdb_txn_begin(try environment.environment(), nil, UInt32(MDB_RDONLY), &created),
                    "mdb_txn_begin(read-only)")
                transaction = created
            }
            guard let transaction else { throw LMDBError(ENOMEM, operation: "mdb_txn_begin(read-only)") }
            defer { mdb_txn_reset(transaction) }
            return try body(LMDBTransaction(pointer: transaction))
        }
    }

    /// Ends the transaction; the environment must still be open.
    func close() {
        if let transaction { mdb_txn_abort(transaction) }
        transaction = nil
    }
}
