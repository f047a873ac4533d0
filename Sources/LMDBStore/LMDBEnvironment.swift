import CLMDB
import Foundation
import PersistenceBench

/// An LMDB environment: one memory-mapped file (`data.mdb`, beside its `lock.mdb`) holding named databases.
///
/// Transactions exist only inside `read(_:)` and `write(_:)`, which always end them: a write commits when its
/// body returns and aborts when it throws; a read is reset (its handle kept for the next read, as LMDB's
/// documentation recommends for frequent short reads). The map grows by itself: a write that fills it is aborted,
/// the map doubled, and the write run again, so a load of any size needs no guessed map size.
///
/// Not thread-safe: one environment per store, used from one thread at a time (`MDB_NOTLS`); other threads read
/// through an `LMDBReader` of their own (`LMDBItemStore+Live.swift`).
package final class LMDBEnvironment {
    /// The linked library's version: "LMDB 0.9.24".
    package static var version: String {
        var major: Int32 = 0
        var minor: Int32 = 0
        var patch: Int32 = 0
        _ = mdb_version(&major, &minor, &patch)
        return "LMDB \(major).\(minor).\(patch)"
    }

    let path: String
    private var pointer: OpaquePointer?
    /// A reset read-only transaction, renewed by the next `read(_:)`: saves allocating one per read.
    private var idleReader: OpaquePointer?
    /// Reads in progress; the map cannot move under them.
    private var activeReads = 0
    /// The current map size in bytes: the most the file can grow to before the next resize.
    package private(set) var mapSize: Int
    /// How many times a full map was doubled since this environment opened.
    package private(set) var resizeCount = 0
    /// Held to read by `LMDBReader`s on other threads during each read, and alone while the map is resized: LMDB
    /// remaps in place, and a read in progress would be left pointing into the old map.
    let resizeLock = ReadWriteLock()
    /// Bumped after every committed write, for observers watching the commit sequence (`+Observation`).
    let commits = CommitSignal()
    /// Write transactions whose begin found the writer mutex held (`write`).
    let writerLockWaits = LockWaitTally()

    /// Opens (creating if needed) the environment in `directory`, which must exist.
    ///
    /// - Parameters:
    ///   - maxDatabases: how many named databases the environment may hold.
    ///   - mapSize: the initial map size; an existing, larger environment keeps its own.
    ///   - flags: more `mdb_env_open` flags (`MDB_NOMETASYNC`), besides `MDB_NOTLS`.
    package init(directory: URL, maxDatabases: UInt32, mapSize: Int, flags: Int32 = 0) throws {
        path = directory.path
        let opened: (OpaquePointer, Int)
        do {
            opened = try Self.open(directory, maxDatabases: maxDatabases, mapSize: mapSize, flags: flags)
        } catch let error as LMDBError where error.code == MDB_INVALID && Self.holdsOnlyMetaPages(directory) {
            // A creation a crash interrupted: data.mdb's name (and, with MDB_WRITEMAP, its length) survived but not
            // both of the meta pages mdb_env_open wrote, and LMDB refuses the file. No transaction was ever committed
            // to it (a commit writes pages past the two metas and flushes them first), so it is made again.
            try FileSystem.remove(directory.appendingPathComponent("data.mdb"))
            opened = try Self.open(directory, maxDatabases: maxDatabases, mapSize: mapSize, flags: flags)
        }
        pointer = opened.0
        self.mapSize = opened.1
    }

    /// Creates an environment handle and opens it on `directory`; returns it and its map size.
    private static func open(_ directory: URL, maxDatabases: UInt32, mapSize: Int, flags: Int32) throws -> (
        OpaquePointer, Int
    ) {
        let path = directory.path
        let creates = !FileManager.default.fileExists(atPath: directory.appendingPathComponent("data.mdb").path)
        var environment: OpaquePointer?
        try LMDBError.check(mdb_env_create(&environment), "mdb_env_create")
        guard let environment else { throw LMDBError(ENOMEM, operation: "mdb_env_create") }
        do {
            try LMDBError.check(mdb_env_set_maxdbs(environment, maxDatabases), "mdb_env_set_maxdbs")
            try LMDBError.check(mdb_env_set_mapsize(environment, mapSize), "mdb_env_set_mapsize(\(mapSize))")
            // MDB_NOTLS ties a read transaction's reader slot to the transaction, not the thread, so that a reset
            // read handle can be renewed and reads can nest. Sync on commit stays on (LMDB's default) unless `flags`
            // say otherwise.
            try LMDBError.check(
                mdb_env_open(environment, path, UInt32(MDB_NOTLS | flags), 0o644), "mdb_env_open(\(path))")
            // LMDB creates data.mdb and never flushes the directory: under POSIX's rule the file's name, and every
            // commit in it, may be gone after a power cut however often the file was synced (`docs/durability.md`).
            // Its meta pages are flushed first, so that a name that survives names a file LMDB can open.
            if creates {
                try LMDBError.check(mdb_env_sync(environment, 1), "mdb_env_sync(\(path))")
                try FileSystem.syncDirectory(directory)
            }
            var info = MDB_envinfo()
            try LMDBError.check(mdb_env_info(environment, &info), "mdb_env_info")
            return (environment, info.me_mapsize)
        } catch {
            mdb_env_close(environment)
            throw error
        }
    }

    /// Whether `directory`'s data.mdb holds nothing past the two meta pages a new environment starts with: it is
    /// no longer than they are, or everything after them is a hole (`MDB_WRITEMAP` sizes a new file to the whole
    /// map with `ftruncate` before writing its metas).
    ///
    /// A file system that cannot report holes reports data, and the file stays an error; so does one that does not
    /// begin as LMDB begins one (zeros or a meta page).
    private static func holdsOnlyMetaPages(_ directory: URL) -> Bool {
        let data = directory.appendingPathComponent("data.mdb").path
        let metas = 2 * Int(sysconf(Int32(_SC_PAGESIZE)))
        let descriptor = Glibc.open(data, O_RDONLY)
        guard descriptor >= 0 else { return false }
        defer { Glibc.close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return false }
        // What a creation writes: zeros, or a meta page's start (its magic number 16 bytes in). Any other file
        // named data.mdb is not one LMDB began, and is not removed.
        var start = [UInt8](repeating: 0, count: metas)
        let count = pread(descriptor, &start, metas, 0)
        guard count >= 0 else { return false }
        let magic: [UInt8] = [0xDE, 0xC0, 0xEF, 0xBE]
        let began = [0, metas / 2].contains { page in
            page + 20 <= count && Array(start[page + 16..<page + 20]) == magic
        }
        guard began || start[..<count].allSatisfy({ $0 == 0 }) else { return false }
        if Int(status.st_size) <= metas { return true }
        // SEEK_DATA (Linux's value; glibc declares it only under _GNU_SOURCE): the next byte that is not a hole.
        let seekData: Int32 = 3
        return lseek(descriptor, off_t(metas), seekData) < 0 && errno == ENXIO
    }

    deinit { close() }

    /// Ends the idle read handle and closes the environment; the files stay.
    ///
    /// Calling it twice does nothing.
    package func close() {
        if let idleReader { mdb_txn_abort(idleReader) }
        idleReader = nil
        if let pointer { mdb_env_close(pointer) }
        pointer = nil
    }

    func environment() throws -> OpaquePointer {
        guard let pointer else { throw LMDBError(EINVAL, operation: "using the closed environment at \(path)") }
        return pointer
    }

    /// Opens the named database, creating it if missing.
    ///
    /// - Parameter flags: `MDB_DUPSORT` and the like, as the C constants.
    package func openDatabase(_ name: String, flags: Int32 = 0) throws -> LMDBDatabase {
        try write { transaction in
            var handle: MDB_dbi = 0
            try LMDBError.check(
                mdb_dbi_open(transaction.pointer, name, UInt32(flags | MDB_CREATE), &handle), "mdb_dbi_open(\(name))")
            return LMDBDatabase(name: name, handle: handle)
        }
    }

    /// Runs `body` in a read-only transaction (a snapshot), then resets it.
    ///
    /// Bytes that `body` reads point into the map: decode or copy them before `body` returns.
    package func read<T>(_ body: (LMDBTransaction) throws -> T) throws -> T {
        let transaction: OpaquePointer
        if let idle = idleReader {
            idleReader = nil
            let code = mdb_txn_renew(idle)
            if code != MDB_SUCCESS {
                mdb_txn_abort(idle)
                throw LMDBError(code, operation: "mdb_txn_renew")
            }
            transaction = idle
        } else {
            transaction = try begin(flags: UInt32(MDB_RDONLY), operation: "mdb_txn_begin(read-only)")
        }
        activeReads += 1
        defer {
            activeReads -= 1
            if idleReader == nil {
                mdb_txn_reset(transaction)
                idleReader = transaction
            } else {
                mdb_txn_abort(transaction)
            }
        }
        return try body(LMDBTransaction(pointer: transaction))
    }

    /// Runs `body` in a read-write transaction and commits it, or aborts it if `body` throws.
    ///
    /// When the map is full, the transaction is aborted, the map doubled and `body` run again from the start:
    /// `body` must have no effect outside the transaction that a second run would repeat.
    package func write<T>(_ body: (LMDBTransaction) throws -> T) throws -> T {
        while true {
            // A begin found the writer mutex held when another transaction (of another process, or of this one on
            // another thread) committed while it waited: its id is past the last one committed before it asked.
            // Counted as SQLite's busy handler counts a write that found the lock held, its time the begin's. Not
            // seen: a wait for a transaction that changed nothing (the id stays), or for one writing its meta page.
            let before = try lastCommittedTransaction()
            let started = monotonicNanoseconds()
            let transaction = try begin(flags: 0, operation: "mdb_txn_begin(read-write)")
            let waited = monotonicNanoseconds() - started
            if mdb_txn_id(transaction) > before + 1 { writerLockWaits.record(seconds: seconds(nanoseconds: waited)) }
            let result: T
            do {
                result = try body(LMDBTransaction(pointer: transaction))
            } catch let error as LMDBError where error.code == MDB_MAP_FULL {
                mdb_txn_abort(transaction)
                try growMap()
                continue
            } catch {
                mdb_txn_abort(transaction)
                throw error
            }
            // mdb_txn_commit frees the transaction whether it succeeds or not.
            let code = mdb_txn_commit(transaction)
            if code == MDB_MAP_FULL {
                try growMap()
                continue
            }
            try LMDBError.check(code, "mdb_txn_commit")
            commits.committed()
            return result
        }
    }

    /// The id of the last write transaction committed to the environment, by any process (`mdb_env_info`).
    private func lastCommittedTransaction() throws -> Int {
        var info = MDB_envinfo()
        try LMDBError.check(mdb_env_info(try environment(), &info), "mdb_env_info")
        return info.me_last_txnid
    }

    private func begin(flags: UInt32, operation: String) throws -> OpaquePointer {
        let environment = try environment()
        var transaction: OpaquePointer?
        var code = mdb_txn_begin(environment, nil, flags, &transaction)
        if code == MDB_MAP_RESIZED {
            // Another process grew the map: adopt its size, then begin again.
            try LMDBError.check(mdb_env_set_mapsize(environment, 0), "mdb_env_set_mapsize(0)")
            code = mdb_txn_begin(environment, nil, flags, &transaction)
        }
        try LMDBError.check(code, operation)
        guard let transaction else { throw LMDBError(ENOMEM, operation: operation) }
        return transaction
    }

    private func growMap() throws {
        // LMDB may only remap while no transaction of this process is live; a read in progress would be left
        // pointing into the old map.
        guard activeReads == 0 else {
            throw LMDBError(MDB_MAP_FULL, operation: "growing the map of \(path) during a read")
        }
        if let idleReader { mdb_txn_abort(idleReader) }
        idleReader = nil
        let newSize = mapSize * 2
        try resizeLock.writing {
            try LMDBError.check(mdb_env_set_mapsize(try environment(), newSize), "mdb_env_set_mapsize(\(newSize))")
        }
        mapSize = newSize
        resizeCount += 1
    }
}

/// A named database inside an environment.
package struct LMDBDatabase: Sendable {
    package let name: String
    let handle: MDB_dbi
}
