import Foundation
import PersistenceBench
import SQLiteSupport

/// `sqlite`'s houses, floors and rooms: the same schema as `grdb` writes with `belongsTo` (foreign keys with
/// `ON DELETE CASCADE`, an index on each). The tree is one ordered LEFT JOIN over house, floor and room (the indexes
/// on `(houseId, position)` and `(floorId, position)` deliver the order without a sort; the ids in ORDER BY, the
/// indexes' last columns, are what lets SQLite's planner see that), and `DELETE FROM house` cascades through the
/// foreign keys to floors and rooms.
extension SQLiteItemStore: HouseStore {
    static let houseSchema = """
        CREATE TABLE IF NOT EXISTS "house" ("id" INTEGER PRIMARY KEY, "address" TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS "floor" ("id" INTEGER PRIMARY KEY, \
        "houseId" INTEGER NOT NULL REFERENCES "house"("id") ON DELETE CASCADE, "position" INTEGER NOT NULL, \
        "name" TEXT NOT NULL);
        CREATE INDEX IF NOT EXISTS "floor_on_houseId_position" ON "floor"("houseId", "position");
        CREATE TABLE IF NOT EXISTS "room" ("id" INTEGER PRIMARY KEY, \
        "floorId" INTEGER NOT NULL REFERENCES "floor"("id") ON DELETE CASCADE, "position" INTEGER NOT NULL, \
        "name" TEXT NOT NULL, "area" INTEGER NOT NULL);
        CREATE INDEX IF NOT EXISTS "room_on_floorId_position" ON "room"("floorId", "position");
        """
    static let housesInOrder = """
        SELECT house.id, house.address, floor.id, floor.name, room.id, room.name, room.area FROM house \
        LEFT JOIN floor ON floor.houseId = house.id LEFT JOIN room ON room.floorId = floor.id \
        ORDER BY house.id, floor.position, floor.id, room.position, room.id
        """

    package func insert(houses: [House]) throws {
        try connection.transaction {
            let insertHouse = try connection.prepare("INSERT INTO house (id, address) VALUES (?, ?)")
            let insertFloor = try connection.prepare(
                "INSERT INTO floor (id, houseId, position, name) VALUES (?, ?, ?, ?)")
            let insertRoom = try connection.prepare(
                "INSERT INTO room (id, floorId, position, name, area) VALUES (?, ?, ?, ?, ?)")
            defer { [insertHouse, insertFloor, insertRoom].forEach { $0.finalize() } }
            for house in houses {
                insertHouse.bind(house.id, at: 1)
                try insertHouse.withText(house.address, at: 2) { try execute(insertHouse) }
                for (floorPosition, floor) in house.floors.enumerated() {
                    insertFloor.bind(floor.id, at: 1)
                    insertFloor.bind(house.id, at: 2)
                    insertFloor.bind(Int64(floorPosition), at: 3)
                    try insertFloor.withText(floor.name, at: 4) { try execute(insertFloor) }
                    for (roomPosition, room) in floor.rooms.enumerated() {
                        insertRoom.bind(room.id, at: 1)
                        insertRoom.bind(floor.id, at: 2)
                        insertRoom.bind(Int64(roomPosition), at: 3)
                        insertRoom.bind(room.area, at: 5)
                        try insertRoom.withText(room.name, at: 4) { try execute(insertRoom) }
                    }
                }
            }
        }
    }

    package func forEachHouse(_ body: (House) throws -> Void) throws {
        try withStatement(Self.housesInOrder) { row in
            var current: House?
            while try row.step() {
                let houseID = row.int64(at: 0)
                // The house being filled is taken out of `current` (not copied), so that appending to it copies
                // nothing.
                var house: House
                if current?.id == houseID, let open = current.take() {
                    house = open
                } else {
                    if let done = current.take() { try body(done) }
                    house = House(id: houseID, address: row.text(at: 1), floors: [])
                }
                defer { current = house }
                guard !row.isNull(at: 2) else { continue }
                let floorID = row.int64(at: 2)
                if house.floors.last?.id != floorID {
                    house.floors.append(Floor(id: floorID, name: row.text(at: 3), rooms: []))
                }
                guard !row.isNull(at: 4) else { continue }
                house.floors[house.floors.count - 1].rooms.append(
                    Room(id: row.int64(at: 4), name: row.text(at: 5), area: row.int64(at: 6)))
            }
            if let house = current { try body(house) }
        }
    }

    package func deleteHouses(ids: [Int64]) throws {
        try connection.transaction {
            try withStatement("DELETE FROM house WHERE id = ?") { statement in
                for id in ids {
                    statement.bind(id, at: 1)
                    try execute(statement)
                }
            }
        }
    }

    package func houseCounts() throws -> HouseCounts {
        let counts = try ["house", "floor", "room"].map { table in
            try withStatement("SELECT COUNT(*) FROM \(table)") { statement in
                _ = try statement.step()
                return Int(statement.int64(at: 0))
            }
        }
        return HouseCounts(houses: counts[0], floors: counts[1], rooms: counts[2])
    }
}
