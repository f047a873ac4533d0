import Foundation
import GRDB
import PersistenceBench

// The house records, written as GRDB's associations guide writes them: Codable records with `hasMany` /
// `belongsTo` associations, the tables created by `belongsTo` columns (foreign keys with ON DELETE CASCADE, each
// indexed). Every `grdb` variant answers these workloads with this code.

struct HouseRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "house"
    static let floors = hasMany(FloorRecord.self).order(Column("position"), Column("id"))
    var id: Int64
    var address: String
}

struct FloorRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "floor"
    static let rooms = hasMany(RoomRecord.self).order(Column("position"), Column("id"))
    var id: Int64
    var houseId: Int64
    var position: Int64
    var name: String
}

struct RoomRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "room"
    var id: Int64
    var floorId: Int64
    var position: Int64
    var name: String
    var area: Int64
}

/// A house with its floors and their rooms: `including(all:)` twice, each association ordered by position.
struct HouseTree: Decodable, FetchableRecord {
    struct FloorTree: Decodable {
        var floor: FloorRecord
        var rooms: [RoomRecord]
    }
    var house: HouseRecord
    var floors: [FloorTree]

    var value: House {
        House(
            id: house.id, address: house.address,
            floors: floors.map { tree in
                Floor(
                    id: tree.floor.id, name: tree.floor.name,
                    rooms: tree.rooms.map { Room(id: $0.id, name: $0.name, area: $0.area) })
            })
    }
}

extension GRDBItemStore: HouseStore {
    /// The houses' migration, after the league's.
    static func registerHouseMigration(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("create houses") { db in
            try db.create(table: "house") { t in
                t.primaryKey("id", .integer)
                t.column("address", .text).notNull()
            }
            try db.create(table: "floor") { t in
                t.primaryKey("id", .integer)
                // Indexed below with the position, which serves the foreign key too.
                t.belongsTo("house", onDelete: .cascade, indexed: false).notNull()
                t.column("position", .integer).notNull()
                t.column("name", .text).notNull()
            }
            try db.create(index: "floor_on_houseId_position", on: "floor", columns: ["houseId", "position"])
            try db.create(table: "room") { t in
                t.primaryKey("id", .integer)
                t.belongsTo("floor", onDelete: .cascade, indexed: false).notNull()
                t.column("position", .integer).notNull()
                t.column("name", .text).notNull()
                t.column("area", .integer).notNull()
            }
            try db.create(index: "room_on_floorId_position", on: "room", columns: ["floorId", "position"])
        }
    }

    /// Houses per query of `forEachHouse`: each page is three queries (houses, their floors, those floors' rooms).
    static let housesPerPage = 1_000

    package func insert(houses: [House]) throws {
        try database.write { db in
            for house in houses {
                try HouseRecord(id: house.id, address: house.address).insert(db)
                for (floorPosition, floor) in house.floors.enumerated() {
                    try FloorRecord(id: floor.id, houseId: house.id, position: Int64(floorPosition), name: floor.name)
                        .insert(db)
                    for (roomPosition, room) in floor.rooms.enumerated() {
                        try RoomRecord(
                            id: room.id, floorId: floor.id, position: Int64(roomPosition), name: room.name,
                            area: room.area
                        ).insert(db)
                    }
                }
            }
        }
    }

    /// Pages of `housesPerPage` houses in one read transaction, each page with its floors and rooms prefetched.
    package func forEachHouse(_ body: (House) throws -> Void) throws {
        try database.read { db in
            var lastID = Int64.min
            while true {
                let page = try HouseRecord.filter(Column("id") > lastID).order(Column("id"))
                    .limit(Self.housesPerPage)
                    .including(all: HouseRecord.floors.including(all: FloorRecord.rooms))
                    .asRequest(of: HouseTree.self).fetchAll(db)
                for tree in page { try body(tree.value) }
                guard let last = page.last, page.count == Self.housesPerPage else { return }
                lastID = last.house.id
            }
        }
    }

    package func deleteHouses(ids: [Int64]) throws {
        try database.write { db in _ = try HouseRecord.deleteAll(db, keys: ids) }
    }

    package func houseCounts() throws -> HouseCounts {
        try database.read { db in
            switch flavor {
            case .records, .codable:
                try HouseCounts(
                    houses: HouseRecord.fetchCount(db), floors: FloorRecord.fetchCount(db),
                    rooms: RoomRecord.fetchCount(db))
            case .statements:
                try HouseCounts(
                    houses: Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM house")) ?? 0,
                    floors: Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM floor")) ?? 0,
                    rooms: Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM room")) ?? 0)
            }
        }
    }
}
