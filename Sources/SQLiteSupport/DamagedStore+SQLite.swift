import Foundation
import PersistenceBench

extension DamagedStore {
    /// The damage SQLite's `PRAGMA integrity_check` reported in `file` (nil for its "ok"), placed at the first page
    /// a line names ("Page 5: …", "On tree page 12 …"), as a page and its byte offset.
    package static func sqlite(file: String, integrityCheck lines: [String], pageSize: Int) -> DamagedStore? {
        guard lines != ["ok"], !lines.isEmpty else { return nil }
        var place: String?
        for line in lines {
            let words = line.split(whereSeparator: { $0 == " " || $0 == ":" })
            if let index = words.firstIndex(where: { $0.lowercased() == "page" }), index + 1 < words.count,
                let page = Int(words[index + 1]), page >= 1
            {
                place = "page \(page) (byte \((page - 1) * pageSize))"
                break
            }
        }
        return DamagedStore(file: file, place: place, problem: lines.joined(separator: "; "))
    }
}

extension StoreFiles {
    /// A SQLite database `name` and the WAL and shared-memory files beside it.
    package static func sqlite(_ name: String) -> StoreFiles {
        StoreFiles(data: [name], traces: [name + "-wal", name + "-shm"])
    }
}

extension DamagedStore {
    /// What SQLite's header shows wrong in database `file` before it is opened: not a SQLite file, a page size
    /// that is not one SQLite writes, a length that is not whole pages, or fewer pages than the header counts
    /// (the count is valid when its "version-valid-for" number equals the change counter, as SQLite itself reads it;
    /// a WAL only adds pages to it).
    package static func sqliteHeader(of file: URL) -> DamagedStore? {
        guard let handle = try? FileHandle(forReadingFrom: file) else { return nil }
        defer { try? handle.close() }
        guard let header = try? handle.read(upToCount: 100), header.count == 100,
            let size = try? handle.seekToEnd()
        else { return DamagedStore(file: file.path, problem: "shorter than SQLite's 100-byte header") }
        let bytes = [UInt8](header)
        func bigEndian(_ offset: Int, _ count: Int) -> Int {
            bytes[offset..<offset + count].reduce(0) { $0 << 8 | Int($1) }
        }
        guard bytes.starts(with: Array("SQLite format 3\0".utf8)) else {
            return DamagedStore(file: file.path, place: "byte 0", problem: "not a SQLite database (no header string)")
        }
        let pageSize = bigEndian(16, 2) == 1 ? 65_536 : bigEndian(16, 2)
        guard pageSize >= 512, pageSize & (pageSize - 1) == 0 else {
            return DamagedStore(file: file.path, place: "byte 16", problem: "page size \(pageSize)")
        }
        guard Int(size) % pageSize == 0 else {
            return DamagedStore(
                file: file.path, place: "byte \(Int(size) / pageSize * pageSize)",
                problem: "\(size) bytes: not whole pages of \(pageSize) (cut mid-page)")
        }
        let pages = bigEndian(28, 4)
        if bigEndian(92, 4) == bigEndian(24, 4), Int(size) / pageSize < pages {
            return DamagedStore(
                file: file.path, place: "byte \(size)",
                problem: "\(Int(size) / pageSize) pages of the \(pages) its header counts (cut short)")
        }
        return nil
    }
}

/// A store kept in one SQLite database, `store.sqlite` in its directory: the files `verify` requires, and the damage
/// the database's header shows before it is opened.
package protocol SQLiteDatabaseStore: IntegrityCheckingStore {}

extension SQLiteDatabaseStore {
    /// The database's name in the store's directory.
    package static var databaseName: String { "store.sqlite" }

    package static func storeFiles(in directory: URL, kind: String) -> StoreFiles { .sqlite(databaseName) }

    package static func damageBeforeOpen(in directory: URL, kind: String) -> [DamagedStore] {
        DamagedStore.sqliteHeader(of: directory.appendingPathComponent(databaseName)).map { [$0] } ?? []
    }
}
