import Foundation
import GRDB
import PersistenceBench

// The association and house records, written as GRDB's associations guide writes them: Codable records with
// `hasMany` / `belongsTo` associations, the tables created by `belongsTo` columns (foreign keys with ON DELETE
// CASCADE, each indexed). Every `grdb` variant answers these workloads with this code: the variants differ in
// how items are written, and these records have no second idiom to compare.

struct SportRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "sport"
    static let teams = hasMany(TeamRecord.self)
    var id: Int64
    var name: String
}

struct TeamRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "team"
    var id: Int64
    var sportId: Int64
    var name: String
}

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

/// A sport and its number of teams: `SportRecord.annotated(with: SportRecord.teams.count)`.
struct SportTeamCount: Decodable, FetchableRecord {
    var id: Int64
    var name: String
    var teamCount: Int
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

extension GRDBItemStore: AssociationStore, HouseStore {
    /// The migrations after the item table's.
    static func registerGraphMigrations(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("create league") { db in
            try db.create(table: "sport") { t in
                t.primaryKey("id", .integer)
                t.column("name", .text).notNull()
            }
            try db.create(table: "team") { t in
                t.primaryKey("id", .integer)
                t.belongsTo("sport", onDelete: .cascade).notNull()
                t.column("name", .text).notNull()
            }
        }
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

    public func insert(sports: [Sport]) throws {
        try pool.write { db in
            for sport in sports { try SportRecord(id: sport.id, name: sport.name).insert(db) }
        }
    }

    public func insert(teams: [Team]) throws {
        try pool.write { db in
            for team in teams { try TeamRecord(id: team.id, sportId: team.sportID, name: team.name).insert(db) }
        }
    }

    public func teamCountsBySport() throws -> [TeamCount] {
        try pool.read { db in
            switch flavor {
            case .records, .codable:
                try SportRecord.annotated(with: SportRecord.teams.count).order(Column("id"))
                    .asRequest(of: SportTeamCount.self).fetchAll(db)
                    .map { TeamCount(sportID: $0.id, sportName: $0.name, teams: $0.teamCount) }
            case .statements:
                try Row.fetchAll(
                    db.cachedStatement(
                        sql: "SELECT sport.id, sport.name, COUNT(team.id) FROM sport "
                            + "LEFT JOIN team ON team.sportId = sport.id GROUP BY sport.id ORDER BY sport.id")
                ).map { TeamCount(sportID: $0[0], sportName: $0[1], teams: $0[2]) }
            }
        }
    }

    public func insert(houses: [House]) throws {
        try pool.write { db in
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
    public func forEachHouse(_ body: (House) throws -> Void) throws {
        try pool.read { db in
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

    public func deleteHouses(ids: [Int64]) throws {
        try pool.write { db in _ = try HouseRecord.deleteAll(db, keys: ids) }
    }

    public func houseCounts() throws -> HouseCounts {
        try pool.read { db in
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

struct StackRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "stack"
    var id: Int64
    var leaf: Int64
    var frames: Data
}

struct SampleRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "sample"
    var timestamp: Int64
    var pid: Int32
    var tid: Int32
    var stackId: Int64
}

/// A sample row joined with its stack's frames.
struct SampleWithFrames: Decodable, FetchableRecord {
    var timestamp: Int64
    var pid: Int32
    var tid: Int32
    var frames: Data
}

extension GRDBItemStore: ProfileStore {
    static func registerProfileMigration(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("create profile") { db in
            try db.create(table: "stack") { t in
                t.primaryKey("id", .integer)
                t.column("leaf", .integer).notNull()
                t.column("frames", .blob).notNull()
            }
            try db.create(table: "sample") { t in
                t.primaryKey("timestamp", .integer)
                t.column("pid", .integer).notNull()
                t.column("tid", .integer).notNull()
                // No index: no query looks samples up by stack, and at 100M samples it would double the writes.
                t.belongsTo("stack", indexed: false).notNull()
            }
        }
    }

    public func insert(samples: [Sample]) throws {
        let interner = try stackInterner()
        let known = interner.count
        do {
            try pool.write { db in
                for sample in samples {
                    let (stackID, isNew) = interner.id(of: sample.callStack)
                    if isNew {
                        try StackRecord(
                            id: stackID, leaf: Int64(bitPattern: sample.leafFrame),
                            frames: Data(StackBytes.encode(sample.callStack))
                        ).insert(db)
                    }
                    try SampleRecord(timestamp: sample.timestamp, pid: sample.pid, tid: sample.tid, stackId: stackID)
                        .insert(db)
                }
            }
        } catch {
            interner.rollBack(to: known)
            throw error
        }
    }

    /// One SQL request with GRDB's SQL interpolation (`grdb+statements`: a cached statement): the window by
    /// primary key, joined, grouped by leaf.
    public func topLeafFrames(from timestamp: Int64, samples count: Int, limit: Int) throws -> [FrameCount] {
        try pool.read { db in
            let rows: [Row]
            switch flavor {
            case .records, .codable:
                let request: SQLRequest<Row> = """
                    SELECT stack.leaf, COUNT(*) AS samples FROM \
                    (SELECT stackId FROM sample WHERE timestamp >= \(timestamp) ORDER BY timestamp LIMIT \(count)) \
                    AS window JOIN stack ON stack.id = window.stackId \
                    GROUP BY stack.leaf ORDER BY samples DESC, stack.leaf LIMIT \(limit)
                    """
                rows = try request.fetchAll(db)
            case .statements:
                rows = try Row.fetchAll(
                    db.cachedStatement(
                        sql: "SELECT stack.leaf, COUNT(*) AS samples FROM "
                            + "(SELECT stackId FROM sample WHERE timestamp >= ? ORDER BY timestamp LIMIT ?) "
                            + "AS window JOIN stack ON stack.id = window.stackId "
                            + "GROUP BY stack.leaf ORDER BY samples DESC, stack.leaf LIMIT ?"),
                    arguments: [timestamp, count, limit])
            }
            return rows.map { row in FrameCount(frame: UInt64(bitPattern: row["leaf"]), samples: row["samples"]) }
        }
    }

    public func forEachSample(_ body: (Sample) throws -> Void) throws {
        try pool.read { db in
            let cursor = try SampleWithFrames.fetchCursor(
                db,
                sql: "SELECT sample.timestamp, sample.pid, sample.tid, stack.frames FROM sample "
                    + "JOIN stack ON stack.id = sample.stackId ORDER BY sample.timestamp")
            while let row = try cursor.next() {
                try body(
                    Sample(
                        timestamp: row.timestamp, pid: row.pid, tid: row.tid,
                        callStack: row.frames.withUnsafeBytes { StackBytes.decode($0) }))
            }
        }
    }

    private func stackInterner() throws -> StackInterner {
        if let profileStacks { return profileStacks }
        let interner = StackInterner()
        for stack in try pool.read({ try StackRecord.fetchAll($0) }) {
            interner.register(stack.frames.withUnsafeBytes { StackBytes.decode($0) }, id: stack.id)
        }
        profileStacks = interner
        return interner
    }
}
