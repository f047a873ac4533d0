import CLMDB
import Foundation
import PersistenceBench

/// `lmdb`'s houses, floors and rooms, in the databases and layouts of `LMDBGraphDatabases.swift`.
extension LMDBItemStore: HouseStore {
    package func insert(houses: [House]) throws {
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
    package func forEachHouse(_ body: (House) throws -> Void) throws {
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
    package func deleteHouses(ids: [Int64]) throws {
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

    package func houseCounts() throws -> HouseCounts {
        try environment.read { transaction in
            try HouseCounts(
                houses: transaction.entryCount(in: graph.houses), floors: transaction.entryCount(in: graph.floors),
                rooms: transaction.entryCount(in: graph.rooms))
        }
    }
}
