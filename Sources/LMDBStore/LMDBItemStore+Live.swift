import CLMDB
import Foundation
import PersistenceBench

extension LMDBItemStore: ConcurrentReadStore {
    /// A read transaction of the reader's own (`MDB_NOTLS` lets it live on any thread), renewed for every read: a
    /// reader sees the last commit and never waits for the writer, nor the writer for it.
    package func makeConcurrentReader() throws -> any QueryReader {
        LMDBItemReader(store: self, reader: LMDBReader(environment: environment))
    }
}

private final class LMDBItemReader: QueryReader {
    private let store: LMDBItemStore
    private let reader: LMDBReader

    init(store: LMDBItemStore, reader: LMDBReader) {
        self.store = store
        self.reader = reader
    }

    func item(id: Int64) throws -> Item? {
        try reader.read { try store.storedItem(id: id, in: $0) }
    }

    func page(_ query: ItemPageQuery) throws -> [Item] {
        try reader.read { try store.page(query, in: $0) }
    }

    func search(_ search: TitleSearch) throws -> TitleSearchAnswer {
        try reader.read { try store.search(search, in: $0) }
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

extension LMDBItemStore: SnapshotPinningStore {
    /// A read transaction begun now and never reset until `close`: every lookup answers from the snapshot it began
    /// on.
    ///
    /// While it lives, LMDB reuses no page freed after it, so the writer's commits take new pages and the file grows
    /// (and its map with it).
    package func pinSnapshot() throws -> any ItemReader {
        var transaction: OpaquePointer?
        try environment.resizeLock.reading {
            try LMDBError.check(
                mdb_txn_begin(try environment.environment(), nil, UInt32(MDB_RDONLY), &transaction),
                "mdb_txn_begin(read-only)")
        }
        guard let transaction else { throw LMDBError(ENOMEM, operation: "mdb_txn_begin(read-only)") }
        return LMDBPinnedReader(store: self, transaction: transaction)
    }
}

private final class LMDBPinnedReader: ItemReader {
    private let store: LMDBItemStore
    private var transaction: OpaquePointer?

    init(store: LMDBItemStore, transaction: OpaquePointer) {
        self.store = store
        self.transaction = transaction
    }

    func item(id: Int64) throws -> Item? {
        guard let transaction else { throw BenchError("reading a released snapshot") }
        return try store.environment.resizeLock.reading {
            try store.storedItem(id: id, in: LMDBTransaction(pointer: transaction))
        }
    }

    func close() throws {
        if let transaction { mdb_txn_abort(transaction) }
        transaction = nil
    }
}
