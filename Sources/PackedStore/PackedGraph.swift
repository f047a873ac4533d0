import Foundation
import PersistenceBench

/// `packed`'s sports, teams and houses: append-only arrays of 32-byte rows, as a profiler keeps its tables, in
/// `graph/` beside the items' generation directories (an item `compact` leaves them alone).
///
/// Files (`AppendOnlyFiles`, committed by `graph.state`): `sports.rows`, `teams.rows`, `houses.rows`,
/// `floors.rows`, `rooms.rows` (`GraphRow`s), `graph.arena` (names and addresses) and `houses.deleted` (the row
/// numbers of deleted houses, 4 bytes each); the state also counts the live floors and rooms. Nothing is changed
/// in place.
///
/// A house is stored whole, so its floors are one run of `floors.rows` and each floor's rooms one run of
/// `rooms.rows`, in their stored order: the house row holds the first floor's row number and the floor count,
/// a floor row its first room's and its room count. A deleted house takes its runs with it: they are unreachable
/// and no longer counted, and no floor or room can outlive its house. Team counts are not kept: the answer is one
/// pass over the teams' sport column into an array of counts, what an array store without an index does.
final class PackedGraph {
    enum Table: Int, CaseIterable {
        case sports, teams, houses, floors, rooms

        var fileName: String { "\(self).rows" }
    }

    /// One row of any table, little-endian: `id`, two integers whose meaning depends on the table, a string.
    ///
    /// | table | `first` | `second` | `text` |
    /// |---|---|---|---|
    /// | sports | 0 | 0 | name |
    /// | teams | sport id | 0 | name |
    /// | houses | row of its first floor | floor count | address |
    /// | floors | row of its first room | room count | name |
    /// | rooms | area | 0 | name |
    struct GraphRow {
        static let size = 32
        var id: Int64
        var first: Int64
        var second: Int64
        var text: ItemRow.StringReference

        init(id: Int64, first: Int64 = 0, second: Int64 = 0, text: ItemRow.StringReference) {
            self.id = id
            self.first = first
            self.second = second
            self.text = text
        }

        init(_ bytes: UnsafeRawBufferPointer, at offset: Int) {
            func load(_ field: Int) -> UInt64 {
                UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 8 * field, as: UInt64.self))
            }
            id = Int64(bitPattern: load(0))
            first = Int64(bitPattern: load(1))
            second = Int64(bitPattern: load(2))
            text = ItemRow.StringReference(packed: load(3))
        }

        func append(to bytes: inout [UInt8]) {
            for field in [UInt64(bitPattern: id), UInt64(bitPattern: first), UInt64(bitPattern: second), text.packed] {
                withUnsafeBytes(of: field.littleEndian) { bytes.append(contentsOf: $0) }
            }
        }
    }

    private enum File: Int {
        case arena = 5, deletions = 6
    }
    private enum Counter: Int {
        case liveFloors, liveRooms
    }

    private let storage: AppendOnlyFiles
    /// Houses whose row number is in `houses.deleted`.
    private var deletedHouseRows = Set<Int>()
    /// Row number by id, per table, built when a lookup first needs it and kept up to date by inserts.
    private var rowByID: [Table: [Int64: Int]] = [:]

    init(directory: URL, flushes: Bool) throws {
        storage = try AppendOnlyFiles(
            directory: directory, state: "graph.state", magic: "PBGRAPH",
            files: zip(Table.allCases.map(\.fileName), ["PBSPORT", "PBTEAM", "PBHOUSE", "PBFLOOR", "PBROOM"]).map {
                ($0, $1)
            } + [("graph.arena", "PBARENA"), ("houses.deleted", "PBDELET")], counters: 2, flushes: flushes)
        let deleted = storage.files[File.deletions.rawValue].bytes
        for index in 0..<deletedHouseCount {
            deletedHouseRows.insert(
                Int(
                    UInt32(
                        littleEndian: deleted.loadUnaligned(
                            fromByteOffset: FileMagic.headerSize + 4 * index, as: UInt32.self))))
        }
    }

    func close() { storage.close() }

    func flush() throws { try storage.flush() }

    private func rowCount(_ table: Table) -> Int {
        (storage.lengths[table.rawValue] - FileMagic.headerSize) / GraphRow.size
    }

    private var arenaLength: Int { storage.lengths[File.arena.rawValue] }
    private var deletedHouseCount: Int { (storage.lengths[File.deletions.rawValue] - FileMagic.headerSize) / 4 }

    /// Appends `rows` to their tables, `strings` to the arena and `deleted` to the deletions, in one commit.
    private func commit(
        rows: [Table: [UInt8]], strings: [UInt8] = [], deleted: [UInt8] = [], floors: Int = 0, rooms: Int = 0
    ) throws {
        var appended: [Int: [UInt8]] = [File.arena.rawValue: strings, File.deletions.rawValue: deleted]
        for (table, bytes) in rows { appended[table.rawValue] = bytes }
        try storage.commit(
            appending: appended,
            counters: [
                storage.counters[Counter.liveFloors.rawValue] + floors,
                storage.counters[Counter.liveRooms.rawValue] + rooms,
            ])
    }

    // MARK: Reading rows

    private func row(_ table: Table, _ index: Int) -> GraphRow {
        GraphRow(storage.files[table.rawValue].bytes, at: FileMagic.headerSize + index * GraphRow.size)
    }

    private func text(_ reference: ItemRow.StringReference) throws -> String {
        let arena = storage.files[File.arena.rawValue]
        guard reference.offset >= FileMagic.headerSize, reference.offset + reference.length <= arenaLength else {
            throw PackedError.corrupted(
                arena.path, "a row refers to bytes \(reference.offset)..<\(reference.offset + reference.length)")
        }
        return String(
            decoding: UnsafeRawBufferPointer(
                rebasing: arena.bytes[reference.offset..<reference.offset + reference.length]),
            as: UTF8.self)
    }

    /// The row holding `id` in `table`, or nil.
    private func rowNumber(of id: Int64, in table: Table) -> Int? {
        if rowByID[table] == nil {
            var index: [Int64: Int] = [:]
            for number in 0..<rowCount(table) { index[row(table, number).id] = number }
            rowByID[table] = index
        }
        return rowByID[table]?[id]
    }

    /// Row numbers of `table` in id order, skipping `excluded`.
    private func rowsInIDOrder(_ table: Table, excluding excluded: Set<Int> = []) -> [Int] {
        var numbers = (0..<rowCount(table)).filter { !excluded.contains($0) }
        var previous = Int64.min
        var ascending = true
        for number in numbers where ascending {
            let id = row(table, number).id
            ascending = id > previous
            previous = id
        }
        if !ascending { numbers.sort { row(table, $0).id < row(table, $1).id } }
        return numbers
    }

    /// Appends `text` to the strings a commit will append to the arena.
    private func appendText(_ text: String, to strings: inout [UInt8]) -> ItemRow.StringReference {
        let reference = ItemRow.StringReference(offset: arenaLength + strings.count, length: text.utf8.count)
        strings.append(contentsOf: text.utf8)
        return reference
    }

    /// Inserted ids must be new: checked against the stored rows and within the batch.
    private func checkNew(_ ids: [Int64], in table: Table) throws {
        var seen = Set<Int64>()
        for id in ids where !seen.insert(id).inserted || rowNumber(of: id, in: table) != nil {
            throw PackedError("inserting \(table) id \(id): a row with this id is stored")
        }
    }

    private func noteInserted(_ ids: [Int64], in table: Table, from first: Int) {
        guard rowByID[table] != nil else { return }
        for (offset, id) in ids.enumerated() { rowByID[table]?[id] = first + offset }
    }

    // MARK: Sports and teams

    func insert(sports: [Sport]) throws {
        try checkNew(sports.map(\.id), in: .sports)
        var rows: [UInt8] = []
        var strings: [UInt8] = []
        for sport in sports { GraphRow(id: sport.id, text: appendText(sport.name, to: &strings)).append(to: &rows) }
        let first = rowCount(.sports)
        try commit(rows: [.sports: rows], strings: strings)
        noteInserted(sports.map(\.id), in: .sports, from: first)
    }

    func insert(teams: [Team]) throws {
        try checkNew(teams.map(\.id), in: .teams)
        var rows: [UInt8] = []
        var strings: [UInt8] = []
        for team in teams {
            guard rowNumber(of: team.sportID, in: .sports) != nil else {
                throw PackedError("inserting team \(team.id): its sport \(team.sportID) is not stored")
            }
            GraphRow(id: team.id, first: team.sportID, text: appendText(team.name, to: &strings)).append(to: &rows)
        }
        let first = rowCount(.teams)
        try commit(rows: [.teams: rows], strings: strings)
        noteInserted(teams.map(\.id), in: .teams, from: first)
    }

    /// One pass over the teams' sport column into a count per sport.
    func teamCountsBySport() throws -> [TeamCount] {
        let sports = rowsInIDOrder(.sports).map { row(.sports, $0) }
        var position: [Int64: Int] = [:]
        for (index, sport) in sports.enumerated() { position[sport.id] = index }
        var counts = [Int](repeating: 0, count: sports.count)
        let teams = storage.files[Table.teams.rawValue]
        let bytes = teams.bytes
        for number in 0..<rowCount(.teams) {
            let sportID = Int64(
                littleEndian: bytes.loadUnaligned(
                    fromByteOffset: FileMagic.headerSize + number * GraphRow.size + 8, as: Int64.self))
            guard let index = position[sportID] else {
                throw PackedError.corrupted(teams.path, "a team of sport \(sportID), which is not stored")
            }
            counts[index] += 1
        }
        return try zip(sports, counts).map { TeamCount(sportID: $0.id, sportName: try text($0.text), teams: $1) }
    }

    // MARK: Houses

    func insert(houses: [House]) throws {
        try checkNew(houses.map(\.id), in: .houses)
        var houseRows: [UInt8] = []
        var floorRows: [UInt8] = []
        var roomRows: [UInt8] = []
        var strings: [UInt8] = []
        let firstFloor = rowCount(.floors)
        let firstRoom = rowCount(.rooms)
        var floorNumber = firstFloor
        var roomNumber = firstRoom
        for house in houses {
            GraphRow(
                id: house.id, first: Int64(floorNumber), second: Int64(house.floors.count),
                text: appendText(house.address, to: &strings)
            ).append(to: &houseRows)
            floorNumber += house.floors.count
            for floor in house.floors {
                GraphRow(
                    id: floor.id, first: Int64(roomNumber), second: Int64(floor.rooms.count),
                    text: appendText(floor.name, to: &strings)
                ).append(to: &floorRows)
                roomNumber += floor.rooms.count
                for room in floor.rooms {
                    GraphRow(id: room.id, first: room.area, text: appendText(room.name, to: &strings))
                        .append(to: &roomRows)
                }
            }
        }
        let first = rowCount(.houses)
        try commit(
            rows: [.houses: houseRows, .floors: floorRows, .rooms: roomRows], strings: strings,
            floors: floorNumber - firstFloor, rooms: roomNumber - firstRoom)
        noteInserted(houses.map(\.id), in: .houses, from: first)
    }

    func forEachHouse(_ body: (House) throws -> Void) throws {
        for number in rowsInIDOrder(.houses, excluding: deletedHouseRows) {
            let house = row(.houses, number)
            var floors: [Floor] = []
            floors.reserveCapacity(Int(house.second))
            for floorNumber in Int(house.first)..<Int(house.first + house.second) {
                let floor = row(.floors, floorNumber)
                let rooms = try (Int(floor.first)..<Int(floor.first + floor.second)).map { roomNumber in
                    let room = row(.rooms, roomNumber)
                    return Room(id: room.id, name: try text(room.text), area: room.first)
                }
                floors.append(Floor(id: floor.id, name: try text(floor.text), rooms: rooms))
            }
            try body(House(id: house.id, address: try text(house.text), floors: floors))
        }
    }

    func deleteHouses(ids: [Int64]) throws {
        var deleted: [UInt8] = []
        var numbers = Set<Int>()
        var floors = 0
        var rooms = 0
        for id in ids {
            guard let number = rowNumber(of: id, in: .houses), !deletedHouseRows.contains(number),
                numbers.insert(number).inserted
            else { throw PackedError("deleting house \(id): it is not stored") }
            let house = row(.houses, number)
            floors += Int(house.second)
            for floorNumber in Int(house.first)..<Int(house.first + house.second) {
                rooms += Int(row(.floors, floorNumber).second)
            }
            withUnsafeBytes(of: UInt32(number).littleEndian) { deleted.append(contentsOf: $0) }
        }
        try commit(rows: [:], deleted: deleted, floors: -floors, rooms: -rooms)
        deletedHouseRows.formUnion(numbers)
    }

    func houseCounts() -> HouseCounts {
        HouseCounts(
            houses: rowCount(.houses) - deletedHouseCount, floors: storage.counters[Counter.liveFloors.rawValue],
            rooms: storage.counters[Counter.liveRooms.rawValue])
    }
}
