import CLMDB
import Foundation
import PersistenceBench

/// After a crash: a cursor walk of every database in the environment (each page reached, each entry counted
/// against the count in its root), every item decoded, and the title index holding one entry per item.
extension LMDBItemStore: IntegrityCheckingStore {
    package func checkIntegrity() throws {
        let file = environment.path + "/data.mdb"
        try DamagedStore.checking(file) {
            try environment.read { transaction in
                // The main database (handle 1) lists the named ones.
                var names: [String] = []
                let main = LMDBDatabase(name: "(main)", handle: 1)
                try walk(main, in: transaction) { entry in
                    names.append(String(decoding: entry.key, as: UTF8.self))
                }
                for name in names {
                    var handle: MDB_dbi = 0
                    try LMDBError.check(mdb_dbi_open(transaction.pointer, name, 0, &handle), "mdb_dbi_open(\(name))")
                    try walk(LMDBDatabase(name: name, handle: handle), in: transaction) { _ in }
                }
                var itemCount = 0
                try walk(self.items, in: transaction) { entry in
                    _ = try ItemCodec.decode(id: ItemCodec.id(fromKey: entry.key), from: entry.value)
                    itemCount += 1
                }
                let indexed = try transaction.entryCount(in: titleIndex)
                guard indexed == itemCount else {
                    throw DamagedStore(
                        file: file, place: "database \(titleIndex.name)",
                        problem: "\(indexed) index entries for \(itemCount) items")
                }
            }
        }
    }

    /// Visits every entry of `database` (every duplicate too) and checks the number against `mdb_stat`'s.
    private func walk(
        _ database: LMDBDatabase, in transaction: LMDBTransaction, _ body: (LMDBCursor.Entry) throws -> Void
    ) throws {
        let visited = try transaction.withCursor(on: database) { cursor in
            var count = 0
            var entry = try cursor.move(MDB_FIRST)
            while let current = entry {
                try body(current)
                count += 1
                entry = try cursor.move(MDB_NEXT)
            }
            return count
        }
        let recorded = try transaction.entryCount(in: database)
        guard visited == recorded else {
            throw DamagedStore(
                file: environment.path + "/data.mdb", place: "database \(database.name)",
                problem: "a walk found \(visited) entries, its root records \(recorded)")
        }
    }
}

// MARK: - Before an open

extension LMDBItemStore {
    package static func storeFiles(in directory: URL, kind: String) -> StoreFiles {
        StoreFiles(data: ["data.mdb"], traces: ["lock.mdb"])
    }

    /// `data.mdb` checked against its meta pages before it is mapped: a file shorter than the last page the newer
    /// meta commits would fault (SIGBUS) on the first read of a page past its end.
    package static func damageBeforeOpen(in directory: URL, kind: String) -> [DamagedStore] {
        let file = directory.appendingPathComponent("data.mdb")
        guard let handle = try? FileHandle(forReadingFrom: file) else { return [] }
        defer { try? handle.close() }
        guard let size = try? handle.seekToEnd() else { return [] }
        var metas: [LMDBMetaPage] = []
        var pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        for page in 0..<2 {
            guard (try? handle.seek(toOffset: UInt64(page * pageSize))) != nil,
                let bytes = try? handle.read(upToCount: LMDBMetaPage.size), let meta = LMDBMetaPage(bytes)
            else { continue }
            if page == 0 { pageSize = meta.pageSize }
            metas.append(meta)
        }
        guard let newest = metas.max(by: { $0.transaction < $1.transaction }) else {
            return [DamagedStore(file: file.path, place: "byte 0", problem: "no LMDB meta page (its magic number)")]
        }
        let needed = (UInt64(newest.lastPage) + 1) * UInt64(newest.pageSize)
        guard size >= needed else {
            return [
                DamagedStore(
                    file: file.path, place: "byte \(size)",
                    problem: "\(size) bytes, cut short: its meta page of transaction \(newest.transaction) commits "
                        + "pages up to \(newest.lastPage) of \(newest.pageSize) bytes (\(needed) bytes)")
            ]
        }
        return []
    }
}

/// The fields of an LMDB 0.9 meta page (`MDB_meta` after the 16-byte page header) that say how long the file is.
struct LMDBMetaPage {
    /// The bytes read: through `mm_txnid`.
    static let size = 152
    static let magic: UInt32 = 0xBEEF_C0DE

    /// `mm_psize` (the free database's `md_pad`).
    let pageSize: Int
    /// `mm_last_pg`.
    let lastPage: Int
    /// `mm_txnid`.
    let transaction: UInt64

    /// The meta page in `bytes`, or nil when it does not start with LMDB's magic number or names no page size.
    init?(_ bytes: Data) {
        guard bytes.count >= Self.size else { return nil }
        let raw = [UInt8](bytes)
        func little<T: FixedWidthInteger>(_ offset: Int, _: T.Type) -> T {
            raw[offset..<offset + MemoryLayout<T>.size].reversed().reduce(T.zero) { $0 << 8 | T($1) }
        }
        guard little(16, UInt32.self) == Self.magic else { return nil }
        pageSize = Int(little(40, UInt32.self))
        lastPage = Int(truncatingIfNeeded: little(136, UInt64.self))
        transaction = little(144, UInt64.self)
        guard pageSize >= 512, pageSize & (pageSize - 1) == 0, lastPage >= 1 else { return nil }
    }
}
