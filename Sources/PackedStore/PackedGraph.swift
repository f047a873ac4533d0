import Foundation
import PersistenceBench

/// `packed`'s sports, teams and houses: append-only arrays of 32-byte rows, as a profiler keeps its tables, in
/// `graph/` beside the items' generation directories (an item `compact` leaves them alone).
///
/// Files: `sports.rows`, `teams.rows`, `houses.rows`, `floors.rows`, `rooms.rows` (each a 64-byte file header,
/// then `GraphRow`s), `graph.arena` (names and addresses), `houses.deleted` (the row numbers of deleted houses,
/// 4 bytes each, appended), and `graph.state`, two checksummed 4 KiB slots written alternately, as `StoreHeader`'s.
/// Nothing is changed in place: a commit appends, flushes what it appended, then writes and flushes the slot that
/// does not hold the current state. Reopening cuts every file to the lengths the newest valid slot commits.
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

    /// The committed state: what `graph.state`'s slots hold.
    struct State: Equatable {
        static let slotSize = 4096
        static let magic: UInt64 = 0x0048_5041_5247_4250  // "PBGRAPH\0" read as a little-endian integer
        static let formatVersion: UInt64 = 1

        var sequence: UInt64 = 0
        var rowCounts = [Int](repeating: 0, count: Table.allCases.count)
        var arenaLength = FileMagic.headerSize
        var deletedHouses = 0
        var liveFloors = 0
        var liveRooms = 0

        /// Integers little-endian: magic, version, sequence, 5 row counts, arena length, deleted houses, live floors,
        /// live rooms; the checksum of those 96 bytes in the slot's last 8.
        func encode() -> [UInt8] {
            var bytes: [UInt8] = []
            let fields: [UInt64] =
                [Self.magic, Self.formatVersion, sequence] + rowCounts.map(UInt64.init)
                + [UInt64(arenaLength), UInt64(deletedHouses), UInt64(liveFloors), UInt64(liveRooms)]
            for field in fields { withUnsafeBytes(of: field.littleEndian) { bytes.append(contentsOf: $0) } }
            let checksum = bytes.withUnsafeBytes { Checksum.of($0) }
            bytes += [UInt8](repeating: 0, count: Self.slotSize - 8 - bytes.count)
            withUnsafeBytes(of: checksum.littleEndian) { bytes.append(contentsOf: $0) }
            return bytes
        }

        static let fieldsSize = 12 * 8

        /// The slot's state; nil when it is empty or torn.
        static func decode(_ slot: UnsafeRawBufferPointer, path: String) throws -> State? {
            func load(_ field: Int) -> UInt64 {
                UInt64(littleEndian: slot.loadUnaligned(fromByteOffset: 8 * field, as: UInt64.self))
            }
            let checksum = UInt64(littleEndian: slot.loadUnaligned(fromByteOffset: slotSize - 8, as: UInt64.self))
            guard checksum == Checksum.of(UnsafeRawBufferPointer(rebasing: slot[..<fieldsSize])) else { return nil }
            guard load(0) == magic, load(1) == formatVersion else {
                throw PackedError.corrupted(path, "a state slot without the PBGRAPH magic and version \(formatVersion)")
            }
            var state = State()
            state.sequence = load(2)
            state.rowCounts = (0..<Table.allCases.count).map { Int(load(3 + $0)) }
            state.arenaLength = Int(load(8))
            state.deletedHouses = Int(load(9))
            state.liveFloors = Int(load(10))
            state.liveRooms = Int(load(11))
            return state
        }
    }

    private let stateFile: MappedFile
    private let tables: [MappedFile]
    private let arena: MappedFile
    private let deletions: MappedFile
    private var state = State()
    /// Houses whose row number is in `houses.deleted`.
    private var deletedHouseRows = Set<Int>()
    /// Row number by id, per table, built when a lookup first needs it and kept up to date by inserts.
    private var rowByID: [Table: [Int64: Int]] = [:]

    init(directory: URL) throws {
        try FileSystem.makeDirectory(directory)
        func open(_ name: String) throws -> MappedFile {
            try MappedFile(path: directory.appendingPathComponent(name).path, create: true)
        }
        stateFile = try open("graph.state")
        tables = try Table.allCases.map { try open($0.fileName) }
        arena = try open("graph.arena")
        deletions = try open("houses.deleted")
        for (file, magic) in zip(tables, ["PBSPORT", "PBTEAM", "PBHOUSE", "PBFLOOR", "PBROOM"]) {
            try FileMagic.prepare(file, magic: magic)
        }
        try FileMagic.prepare(arena, magic: "PBARENA")
        try FileMagic.prepare(deletions, magic: "PBDELET")
        try recover()
    }

    func close() {
        for file in tables + [arena, deletions, stateFile] { file.close() }
    }

    // MARK: Recovery and commit

    private func recover() throws {
        if stateFile.length < 2 * State.slotSize {
            // A new graph: an empty state in slot 0 and an empty slot 1, flushed with the files' headers.
            let bytes = State().encode() + [UInt8](repeating: 0, count: State.slotSize)
            try bytes.withUnsafeBytes { try stateFile.write($0, at: 0) }
            for file in tables + [arena, deletions, stateFile] { try file.sync() }
            return
        }
        let slots = try (0..<2).compactMap { slot in
            try State.decode(
                UnsafeRawBufferPointer(rebasing: stateFile.bytes[slot * State.slotSize..<(slot + 1) * State.slotSize]),
                path: stateFile.path)
        }
        guard let committed = slots.max(by: { $0.sequence < $1.sequence }) else {
            throw PackedError.corrupted(stateFile.path, "neither state slot has a valid checksum")
        }
        // What was appended after the last commit is not part of the store.
        let lengths =
            committed.rowCounts.map { FileMagic.headerSize + $0 * GraphRow.size }
            + [committed.arenaLength, FileMagic.headerSize + 4 * committed.deletedHouses]
        for (file, length) in zip(tables + [arena, deletions], lengths) {
            guard file.length >= length else {
                throw PackedError.corrupted(file.path, "\(file.length) bytes; \(stateFile.path) commits \(length)")
            }
            if file.length > length { try file.truncate(to: length) }
        }
        state = committed
        let deleted = deletions.bytes
        for index in 0..<state.deletedHouses {
            deletedHouseRows.insert(
                Int(
                    UInt32(
                        littleEndian: deleted.loadUnaligned(
                            fromByteOffset: FileMagic.headerSize + 4 * index, as: UInt32.self))))
        }
    }

    /// Appends rows and strings beyond the committed lengths, flushes them, then commits `next` (which counts
    /// them) in the slot not in use.
    private func commit(_ next: State, rows: [Table: [UInt8]], strings: [UInt8] = [], deleted: [UInt8] = []) throws {
        var next = next
        next.sequence = state.sequence + 1
        for (table, bytes) in rows where !bytes.isEmpty {
            let file = tables[table.rawValue]
            try bytes.withUnsafeBytes {
                try file.write($0, at: FileMagic.headerSize + state.rowCounts[table.rawValue] * GraphRow.size)
            }
            try file.sync()
        }
        if !strings.isEmpty {
            try strings.withUnsafeBytes { try arena.write($0, at: state.arenaLength) }
            try arena.sync()
        }
        if !deleted.isEmpty {
            try deleted.withUnsafeBytes { try deletions.write($0, at: FileMagic.headerSize + 4 * state.deletedHouses) }
            try deletions.sync()
        }
        try next.encode().withUnsafeBytes { try stateFile.write($0, at: Int(next.sequence % 2) * State.slotSize) }
        try stateFile.sync()
        state = next
    }

    // MARK: Reading rows

    private func row(_ table: Table, _ index: Int) -> GraphRow {
        GraphRow(tables[table.rawValue].bytes, at: FileMagic.headerSize + index * GraphRow.size)
    }

    private func text(_ reference: ItemRow.StringReference) throws -> String {
        guard reference.offset >= FileMagic.headerSize, reference.offset + reference.length <= state.arenaLength
        else {
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
            for number in 0..<state.rowCounts[table.rawValue] { index[row(table, number).id] = number }
            rowByID[table] = index
        }
        return rowByID[table]?[id]
    }

    /// Row numbers of `table` in id order, skipping `excluded`.
    private func rowsInIDOrder(_ table: Table, excluding excluded: Set<Int> = []) -> [Int] {
        var numbers = (0..<state.rowCounts[table.rawValue]).filter { !excluded.contains($0) }
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

    private func appendText(_ text: String, to strings: inout [UInt8], next: State) -> ItemRow.StringReference {
        let reference = ItemRow.StringReference(offset: next.arenaLength + strings.count, length: text.utf8.count)
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
        for (offset, id) in ids.enumerated() { rowByID[table]![id] = first + offset }
    }

    // MARK: Sports and teams

    func insert(sports: [Sport]) throws {
        try checkNew(sports.map(\.id), in: .sports)
        var next = state
        var rows: [UInt8] = []
        var strings: [UInt8] = []
        for sport in sports {
            GraphRow(id: sport.id, text: appendText(sport.name, to: &strings, next: next)).append(to: &rows)
        }
        next.rowCounts[Table.sports.rawValue] += sports.count
        next.arenaLength += strings.count
        let first = state.rowCounts[Table.sports.rawValue]
        try commit(next, rows: [.sports: rows], strings: strings)
        noteInserted(sports.map(\.id), in: .sports, from: first)
    }

    func insert(teams: [Team]) throws {
        try checkNew(teams.map(\.id), in: .teams)
        var next = state
        var rows: [UInt8] = []
        var strings: [UInt8] = []
        for team in teams {
            guard rowNumber(of: team.sportID, in: .sports) != nil else {
                throw PackedError("inserting team \(team.id): its sport \(team.sportID) is not stored")
            }
            GraphRow(id: team.id, first: team.sportID, text: appendText(team.name, to: &strings, next: next))
                .append(to: &rows)
        }
        next.rowCounts[Table.teams.rawValue] += teams.count
        next.arenaLength += strings.count
        let first = state.rowCounts[Table.teams.rawValue]
        try commit(next, rows: [.teams: rows], strings: strings)
        noteInserted(teams.map(\.id), in: .teams, from: first)
    }

    /// One pass over the teams' sport column into a count per sport.
    func teamCountsBySport() throws -> [TeamCount] {
        let sports = rowsInIDOrder(.sports).map { row(.sports, $0) }
        var position: [Int64: Int] = [:]
        for (index, sport) in sports.enumerated() { position[sport.id] = index }
        var counts = [Int](repeating: 0, count: sports.count)
        let teams = tables[Table.teams.rawValue].bytes
        for number in 0..<state.rowCounts[Table.teams.rawValue] {
            let sportID = Int64(
                littleEndian: teams.loadUnaligned(
                    fromByteOffset: FileMagic.headerSize + number * GraphRow.size + 8, as: Int64.self))
            guard let index = position[sportID] else {
                throw PackedError.corrupted(tables[Table.teams.rawValue].path, "a team of sport \(sportID), not stored")
            }
            counts[index] += 1
        }
        return try zip(sports, counts).map { TeamCount(sportID: $0.id, sportName: try text($0.text), teams: $1) }
    }

    // MARK: Houses

    func insert(houses: [House]) throws {
        try checkNew(houses.map(\.id), in: .houses)
        var next = state
        var houseRows: [UInt8] = []
        var floorRows: [UInt8] = []
        var roomRows: [UInt8] = []
        var strings: [UInt8] = []
        var floorNumber = state.rowCounts[Table.floors.rawValue]
        var roomNumber = state.rowCounts[Table.rooms.rawValue]
        for house in houses {
            GraphRow(
                id: house.id, first: Int64(floorNumber), second: Int64(house.floors.count),
                text: appendText(house.address, to: &strings, next: next)
            ).append(to: &houseRows)
            floorNumber += house.floors.count
            for floor in house.floors {
                GraphRow(
                    id: floor.id, first: Int64(roomNumber), second: Int64(floor.rooms.count),
                    text: appendText(floor.name, to: &strings, next: next)
                ).append(to: &floorRows)
                roomNumber += floor.rooms.count
                for room in floor.rooms {
                    GraphRow(id: room.id, first: room.area, text: appendText(room.name, to: &strings, next: next))
                        .append(to: &roomRows)
                }
            }
        }
        next.rowCounts[Table.houses.rawValue] += houses.count
        next.liveFloors += floorNumber - state.rowCounts[Table.floors.rawValue]
        next.liveRooms += roomNumber - state.rowCounts[Table.rooms.rawValue]
        next.rowCounts[Table.floors.rawValue] = floorNumber
        next.rowCounts[Table.rooms.rawValue] = roomNumber
        next.arenaLength += strings.count
        let first = state.rowCounts[Table.houses.rawValue]
        try commit(next, rows: [.houses: houseRows, .floors: floorRows, .rooms: roomRows], strings: strings)
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
        var next = state
        var deleted: [UInt8] = []
        var numbers = Set<Int>()
        for id in ids {
            guard let number = rowNumber(of: id, in: .houses), !deletedHouseRows.contains(number),
                numbers.insert(number).inserted
            else { throw PackedError("deleting house \(id): it is not stored") }
            let house = row(.houses, number)
            next.liveFloors -= Int(house.second)
            for floorNumber in Int(house.first)..<Int(house.first + house.second) {
                next.liveRooms -= Int(row(.floors, floorNumber).second)
            }
            withUnsafeBytes(of: UInt32(number).littleEndian) { deleted.append(contentsOf: $0) }
        }
        next.deletedHouses += numbers.count
        try commit(next, rows: [:], deleted: deleted)
        deletedHouseRows.formUnion(numbers)
    }

    func houseCounts() -> HouseCounts {
        HouseCounts(
            houses: state.rowCounts[Table.houses.rawValue] - state.deletedHouses, floors: state.liveFloors,
            rooms: state.liveRooms)
    }
}
