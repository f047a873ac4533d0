import CLMDB
import Foundation
import PersistenceBench

/// `lmdb`'s migration to unique titles (`unique-title`).
extension LMDBItemStore: MigrationStore {
    static let uniqueTitlesKey = Array("uniqueTitles".utf8)

    /// LMDB's way: one write transaction walks the items in id order and puts each title into a new `title → id`
    /// database with `MDB_NOOVERWRITE`; an item whose title is already there is a later duplicate and is deleted
    /// (with its entry in the title index).
    ///
    /// The new database is then the unique index that inserts and updates keep, recorded in `meta` so that a reopened
    /// store keeps it.
    package func migrateToUniqueTitles() throws -> Int {
        let deleted = try environment.write { transaction in
            var duplicates: [Item] = []
            try transaction.withCursor(on: items) { cursor in
                var entry = try cursor.move(MDB_FIRST)
                while let current = entry {
                    let item = try ItemCodec.decode(id: ItemCodec.id(fromKey: current.key), from: current.value)
                    do { try claim(item.title, for: item.id, in: transaction) } catch let error as LMDBError
                        where error.code == MDB_KEYEXIST
                    {
                        duplicates.append(item)
                    }
                    entry = try cursor.move(MDB_NEXT)
                }
            }
            for item in duplicates {
                try removeIndexEntry(of: item, in: transaction)
                _ = try ItemCodec.withKey(item.id) { try transaction.delete(in: items, key: $0) }
            }
            try Self.uniqueTitlesKey.withUnsafeBytes { key in
                try withUnsafeBytes(of: UInt8(1)) { try transaction.put(in: meta, key: key, value: $0) }
            }
            return duplicates.count
        }
        titlesAreUnique = true
        return deleted
    }

    /// Enters `title` for item `id` in the unique index; `MDB_KEYEXIST` if another item has it.
    func claim(_ title: String, for id: Int64, in transaction: LMDBTransaction) throws {
        var title = title
        try title.withUTF8 { utf8 in
            try ItemCodec.withKey(id) { value in
                do {
                    try transaction.put(
                        in: titles, key: UnsafeRawBufferPointer(utf8), value: value, flags: MDB_NOOVERWRITE)
                } catch let error as LMDBError where error.code == MDB_KEYEXIST {
                    throw LMDBError(
                        operation: "storing item \(id)", code: MDB_KEYEXIST,
                        message:
                            "its title \"\(String(decoding: utf8, as: UTF8.self))\" is another item's; titles are unique"
                    )
                }
            }
        }
    }

    func release(_ title: String, in transaction: LMDBTransaction) throws {
        var title = title
        try title.withUTF8 { _ = try transaction.delete(in: titles, key: UnsafeRawBufferPointer($0)) }
    }
}
