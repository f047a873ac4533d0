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

extension LMDBItemStore: AssociationStore, HouseStore {
    public func insert(sports: [Sport]) throws {
        try environment.write { transaction in
            for sport in sports {
                try ItemCodec.withKey(sport.id) { key in
                    try GraphCodec.put(sport.name, after: [], in: graph.sports, key: key, transaction)
                }
            }
        }
    }

    public func insert(teams: [Team]) throws {
        try environment.write { transaction in
            for team in teams {
                try ItemCodec.withKey(team.id) { teamKey in
                    try ItemCodec.withKey(team.sportID) { sportKey in
                        try GraphCodec.put(team.name, after: [sportKey], in: graph.teams, key: teamKey, transaction)
                        try transaction.put(in: graph.teamsBySport, key: sportKey, value: teamKey, flags: MDB_NODUPDATA)
                    }
                }
            }
        }
    }

    public func teamCountsBySport() throws -> [TeamCount] {
        try environment.read { transaction in
            try transaction.withCursor(on: graph.sports) { sports in
                try transaction.withCursor(on: graph.teamsBySport) { index in
                    var counts: [TeamCount] = []
                    var indexEntry = try index.move(MDB_FIRST)
                    var sportEntry = try sports.move(MDB_FIRST)
                    while let sport = sportEntry {
                        let id = try ItemCodec.id(fromKey: sport.key)
                        var teams = 0
                        if let entry = indexEntry, try ItemCodec.id(fromKey: entry.key) == id {
                            teams = try index.duplicateCount()
                            indexEntry = try index.move(MDB_NEXT_NODUP)
                        }
                        counts.append(
                            TeamCount(sportID: id, sportName: GraphCodec.text(sport.value, from: 0), teams: teams))
                        sportEntry = try sports.move(MDB_NEXT)
                    }
                    guard indexEntry == nil else {
                        throw LMDBError.corrupted(
                            "counting teams", "the index lists teams of a sport that is not stored")
                    }
                    return counts
                }
            }
        }
    }

    public func insert(houses: [House]) throws {
        try environment.write { transaction in
            for house in houses {
                try ItemCodec.withKey(house.id) { houseKey in
                    try GraphCodec.put(house.address, after: [], in: graph.houses, key: houseKey, transaction)
                    for (floorPosition, floor) in house.floors.enumerated() {
                        let floorKey = GraphCodec.key(houseKey, UInt32(floorPosition))
                        try ItemCodec.withKey(floor.id) { floorID in
                            try GraphCodec.put(
                                floor.name, after: [floorID], in: graph.floors, key: floorKey, transaction)
                        }
                        for (roomPosition, room) in floor.rooms.enumerated() {
                            let roomKey = GraphCodec.key(houseKey, UInt32(floorPosition), UInt32(roomPosition))
                            try ItemCodec.withKey(room.id) { roomID in
                                try withUnsafeBytes(of: room.area.littleEndian) { area in
                                    try GraphCodec.put(
                                        room.name, after: [roomID, area], in: graph.rooms, key: roomKey, transaction)
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// One read transaction; the house, floor and room cursors move forward together.
    public func forEachHouse(_ body: (House) throws -> Void) throws {
        try environment.read { transaction in
            try transaction.withCursor(on: graph.houses) { houses in
                try transaction.withCursor(on: graph.floors) { floors in
                    try transaction.withCursor(on: graph.rooms) { rooms in
                        var floorEntry = try floors.move(MDB_FIRST)
                        var roomEntry = try rooms.move(MDB_FIRST)
                        var houseEntry = try houses.move(MDB_FIRST)
                        while let houseRow = houseEntry {
                            let houseKey = houseRow.key
                            var house = House(
                                id: try ItemCodec.id(fromKey: houseKey),
                                address: GraphCodec.text(houseRow.value, from: 0),
                                floors: [])
                            while let floorRow = floorEntry, GraphCodec.hasPrefix(floorRow.key, houseKey) {
                                var floor = Floor(
                                    id: try GraphCodec.id(floorRow.value, at: 0),
                                    name: GraphCodec.text(floorRow.value, from: 8),
                                    rooms: [])
                                while let roomRow = roomEntry, GraphCodec.hasPrefix(roomRow.key, floorRow.key) {
                                    let value = roomRow.value
                                    floor.rooms.append(
                                        Room(
                                            id: try GraphCodec.id(value, at: 0), name: GraphCodec.text(value, from: 16),
                                            area: Int64(
                                                littleEndian: value.loadUnaligned(fromByteOffset: 8, as: Int64.self))))
                                    roomEntry = try rooms.move(MDB_NEXT)
                                }
                                house.floors.append(floor)
                                floorEntry = try floors.move(MDB_NEXT)
                            }
                            try body(house)
                            houseEntry = try houses.move(MDB_NEXT)
                        }
                        guard floorEntry == nil, roomEntry == nil else {
                            throw LMDBError.corrupted("reading houses", "a floor or room belongs to no stored house")
                        }
                    }
                }
            }
        }
    }

    /// Deletes each house's key and the key ranges of its floors and rooms, in one write transaction.
    public func deleteHouses(ids: [Int64]) throws {
        try environment.write { transaction in
            for id in ids {
                try ItemCodec.withKey(id) { houseKey in
                    guard try transaction.delete(in: graph.houses, key: houseKey) else {
                        throw LMDBError(
                            operation: "deleting house \(id)", code: MDB_NOTFOUND, message: "it is not stored")
                    }
                    for database in [graph.floors, graph.rooms] {
                        let keys = try transaction.withCursor(on: database) { cursor in
                            var keys: [[UInt8]] = []
                            var entry = try cursor.move(MDB_SET_RANGE, key: houseKey)
                            while let row = entry, GraphCodec.hasPrefix(row.key, houseKey) {
                                keys.append(Array(row.key))
                                entry = try cursor.move(MDB_NEXT)
                            }
                            return keys
                        }
                        for key in keys {
                            try key.withUnsafeBytes { _ = try transaction.delete(in: database, key: $0) }
                        }
                    }
                }
            }
        }
    }

    public func houseCounts() throws -> HouseCounts {
        try environment.read { transaction in
            try HouseCounts(
                houses: transaction.entryCount(in: graph.houses), floors: transaction.entryCount(in: graph.floors),
                rooms: transaction.entryCount(in: graph.rooms))
        }
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
        key.count > prefix.count && memcmp(key.baseAddress!, prefix.baseAddress!, prefix.count) == 0
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
