import Foundation
import PersistenceBench

/// The dump `memory` writes at close (untimed) and reads at open, so that a fixture loaded once can be copied to
/// every cell like any store's files: the document's contents in a binary layout of its own, and the page orders.
extension MemoryItemStore {
    /// magic, unique-titles flag, the items (id, price, createdAt, filter code, title, notes), the page orders if
    /// sorted, then, unless all are empty, sports, teams, houses with their floors and rooms, call stacks and
    /// samples: every count and number a little-endian word, every text its length and UTF-8 bytes. (An items-only
    /// dump is the same size as before the other records were kept, so its bytes on disk compare with older runs.)
    func encoded() -> [UInt8] {
        var dump = DumpWriter(bytes: Self.magic)
        let document = document()
        dump.byte(document.titlesAreUnique ? 1 : 0)
        dump.count(document.items.count)
        for item in document.items {
            dump.word(UInt64(bitPattern: item.id))
            dump.word(item.price.bitPattern)
            dump.word(item.createdAt.timeIntervalSince1970.bitPattern)
            dump.byte(ItemFilter(matching: item).code)
            dump.text(item.title)
            dump.text(item.notes)
        }
        // Page orders with unplaced writes are left out: the next open sorts them at its first page.
        let orders = unsortedIDs.isEmpty ? pageOrders : nil
        dump.byte(orders == nil ? 0 : 1)
        for order in orders ?? [] {
            dump.count(order.count)
            for id in order { dump.word(UInt64(bitPattern: id)) }
        }
        guard
            !(document.sports.isEmpty && document.teams.isEmpty && document.houses.isEmpty
                && document.samples.isEmpty)
        else { return dump.bytes }
        dump.associations(of: document)
        return dump.bytes
    }

    func read(_ data: Data) throws {
        let path = file.path
        var orders: [[Int64]]?
        let document = try data.withUnsafeBytes { raw in
            var dump = DumpReader(bytes: raw, path: path)
            guard try Array(dump.bytes(Self.magic.count)) == Self.magic else {
                throw BenchError(
                    "\(path) is not a memory store dump (version \(String(decoding: Self.magic, as: UTF8.self)))")
            }
            var document = Document()
            document.titlesAreUnique = try dump.byte() == 1
            document.items = try (0..<dump.count()).map { _ in
                let id = Int64(bitPattern: try dump.word())
                let price = Double(bitPattern: try dump.word())
                let createdAt = Double(bitPattern: try dump.word())
                guard let filter = ItemFilter(code: try dump.byte()) else {
                    throw BenchError("\(path): item \(id) has a bad filter code")
                }
                return Item(
                    id: id, title: try dump.text(), notes: try dump.text(), isInStock: filter.isInStock,
                    priority: filter.priority, price: price, createdAt: Date(timeIntervalSince1970: createdAt))
            }
            if try dump.byte() == 1 {
                orders = try (0..<4).map { _ in try (0..<dump.count()).map { _ in Int64(bitPattern: try dump.word()) } }
            }
            guard !dump.atEnd else { return document }
            try dump.readAssociations(into: &document)
            guard dump.atEnd else { throw BenchError("\(path): bytes after the end") }
            return document
        }
        try load(document)
        pageOrders = orders
    }
}

/// Builds a dump front to back.
struct DumpWriter {
    var bytes: [UInt8]

    mutating func byte(_ value: UInt8) { bytes.append(value) }

    mutating func word(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func count(_ value: Int) { word(UInt64(value)) }

    mutating func text(_ value: String) {
        count(value.utf8.count)
        bytes.append(contentsOf: value.utf8)
    }
}

/// Reads a dump front to back, throwing on a short file.
struct DumpReader {
    let bytes: UnsafeRawBufferPointer
    let path: String
    var offset = 0

    var atEnd: Bool { offset == bytes.count }

    mutating func bytes(_ count: Int) throws -> UnsafeRawBufferPointer {
        guard count >= 0, offset + count <= bytes.count else { throw BenchError("\(path) ends early") }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
    }

    mutating func byte() throws -> UInt8 { try bytes(1)[0] }

    mutating func word() throws -> UInt64 {
        UInt64(littleEndian: try bytes(8).loadUnaligned(as: UInt64.self))
    }

    mutating func count() throws -> Int {
        let value = try word()
        guard value <= UInt64(bytes.count) else { throw BenchError("\(path): a count of \(value)") }
        return Int(value)
    }

    mutating func text() throws -> String {
        String(decoding: try bytes(try count()), as: UTF8.self)
    }
}

extension DumpWriter {
    /// The document's records besides its items: sports, teams, houses with their floors and rooms, call stacks and
    /// samples.
    fileprivate mutating func associations(of document: Document) {
        count(document.sports.count)
        for sport in document.sports {
            word(UInt64(bitPattern: sport.id))
            text(sport.name)
        }
        count(document.teams.count)
        for team in document.teams {
            word(UInt64(bitPattern: team.id))
            word(UInt64(bitPattern: team.sportID))
            text(team.name)
        }
        count(document.houses.count)
        for house in document.houses {
            word(UInt64(bitPattern: house.id))
            text(house.address)
            count(house.floors.count)
            for floor in house.floors {
                word(UInt64(bitPattern: floor.id))
                text(floor.name)
                count(floor.rooms.count)
                for room in floor.rooms {
                    word(UInt64(bitPattern: room.id))
                    text(room.name)
                    word(UInt64(bitPattern: room.area))
                }
            }
        }
        count(document.stacks.count)
        for stack in document.stacks {
            count(stack.count)
            for frame in stack { word(frame) }
        }
        count(document.samples.count)
        for sample in document.samples {
            word(UInt64(bitPattern: sample.timestamp))
            word(UInt64(UInt32(bitPattern: sample.pid)) << 32 | UInt64(UInt32(bitPattern: sample.tid)))
            word(UInt64(UInt32(bitPattern: sample.stack)))
        }
    }
}

extension DumpReader {
    /// What `DumpWriter.associations(of:)` wrote, into `document`.
    fileprivate mutating func readAssociations(into document: inout Document) throws {
        document.sports = try (0..<count()).map { _ in
            Sport(id: Int64(bitPattern: try word()), name: try text())
        }
        document.teams = try (0..<count()).map { _ in
            Team(
                id: Int64(bitPattern: try word()), sportID: Int64(bitPattern: try word()),
                name: try text())
        }
        document.houses = try (0..<count()).map { _ in
            House(
                id: Int64(bitPattern: try word()), address: try text(),
                floors: try (0..<count()).map { _ in
                    Floor(
                        id: Int64(bitPattern: try word()), name: try text(),
                        rooms: try (0..<count()).map { _ in
                            Room(
                                id: Int64(bitPattern: try word()), name: try text(),
                                area: Int64(bitPattern: try word()))
                        })
                })
        }
        document.stacks = try (0..<count()).map { _ in try (0..<count()).map { _ in try word() } }
        document.samples = try (0..<count()).map { _ in
            let timestamp = Int64(bitPattern: try word())
            let threads = try word()
            return StoredSample(
                timestamp: timestamp, pid: Int32(bitPattern: UInt32(truncatingIfNeeded: threads >> 32)),
                tid: Int32(bitPattern: UInt32(truncatingIfNeeded: threads)),
                stack: Int32(bitPattern: UInt32(truncatingIfNeeded: try word())))
        }
    }
}
