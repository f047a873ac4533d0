import CLMDB
import Foundation
import PersistenceBench

/// `lmdb`'s sports, teams and houses, each kind in its own database, the way a key-value store models relations:
/// keys that sort in the order the questions read them.
///
/// | database | key | value |
/// |---|---|---|
/// | `sport` | sport id | name (UTF-8, the rest of the value) |
/// | `team` | team id | sport id (8 bytes), name |
/// | `team_by_sport` (`MDB_DUPSORT`, `MDB_DUPFIXED`) | sport id | team id: the index that counts teams |
/// | `house` | house id | address |
/// | `floor` | house id, position (4 bytes, big-endian) | floor id, name |
/// | `room` | house id, floor position, position | room id, area (8 bytes, little-endian), name |
///
/// Ids are 8 bytes as in `ItemCodec`'s keys. Team counts walk `sport` and the index's distinct keys together
/// (`MDB_NEXT_NODUP`), each count O(1) from the key's duplicate tree (`mdb_cursor_count`). A house's floors and
/// rooms sit under its id in key order, so reading every house walks three cursors forward in step, and deleting
/// one removes a key range from each.
struct LMDBGraphDatabases {
    let sports: LMDBDatabase
    let teams: LMDBDatabase
    let teamsBySport: LMDBDatabase
    let houses: LMDBDatabase
    let floors: LMDBDatabase
    let rooms: LMDBDatabase

    static let count: UInt32 = 6

    init(in environment: LMDBEnvironment) throws {
        sports = try environment.openDatabase("sport")
        teams = try environment.openDatabase("team")
        teamsBySport = try environment.openDatabase("team_by_sport", flags: MDB_DUPSORT | MDB_DUPFIXED)
        houses = try environment.openDatabase("house")
        floors = try environment.openDatabase("floor")
        rooms = try environment.openDatabase("room")
    }
}

/// The byte layouts of `LMDBGraphDatabases`.
enum GraphCodec {
    /// Stores fixed-width `fields` then `text`'s UTF-8 bytes as one value, written straight into the map.
    static func put(
        _ text: String, after fields: [UnsafeRawBufferPointer], in database: LMDBDatabase, key: UnsafeRawBufferPointer,
        _ transaction: LMDBTransaction
    ) throws {
        var text = text
        let head = fields.reduce(0) { $0 + $1.count }
        try text.withUTF8 { utf8 in
            let value = try transaction.reserve(
                in: database, key: key, count: head + utf8.count, flags: MDB_NOOVERWRITE)
            var offset = 0
            for field in fields {
                UnsafeMutableRawBufferPointer(rebasing: value[offset..<offset + field.count]).copyMemory(from: field)
                offset += field.count
            }
            UnsafeMutableRawBufferPointer(rebasing: value[offset...]).copyMemory(from: UnsafeRawBufferPointer(utf8))
        }
    }

    /// An id key followed by positions, 4 big-endian bytes each: keys sort by owner, then position.
    static func key(_ owner: UnsafeRawBufferPointer, _ positions: UInt32...) -> [UInt8] {
        var key = Array(owner)
        for position in positions { withUnsafeBytes(of: position.bigEndian) { key.append(contentsOf: $0) } }
        return key
    }

    static func put(
        _ text: String, after fields: [UnsafeRawBufferPointer], in database: LMDBDatabase, key: [UInt8],
        _ transaction: LMDBTransaction
    ) throws {
        try key.withUnsafeBytes { try put(text, after: fields, in: database, key: $0, transaction) }
    }

    static func hasPrefix(_ key: UnsafeRawBufferPointer, _ prefix: UnsafeRawBufferPointer) -> Bool {
        guard key.count > prefix.count, let keyBytes = key.baseAddress else { return false }
        guard let prefixBytes = prefix.baseAddress else { return true }
        return memcmp(keyBytes, prefixBytes, prefix.count) == 0
    }

    static func hasPrefix(_ key: UnsafeRawBufferPointer, _ prefix: [UInt8]) -> Bool {
        prefix.withUnsafeBytes { hasPrefix(key, $0) }
    }

    static func id(_ value: UnsafeRawBufferPointer, at offset: Int) throws -> Int64 {
        guard value.count >= offset + 8 else {
            throw LMDBError.corrupted("decoding a record", "a value of \(value.count) bytes")
        }
        return try ItemCodec.id(fromKey: UnsafeRawBufferPointer(rebasing: value[offset..<offset + 8]))
    }

    static func text(_ value: UnsafeRawBufferPointer, from offset: Int) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: value[min(offset, value.count)...]), as: UTF8.self)
    }
}
