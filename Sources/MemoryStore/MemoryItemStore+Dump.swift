import Foundation
import PersistenceBench

/// The dump `memory` writes at close (untimed) and reads at open, so that a fixture loaded once can be copied to
/// every cell like any store's files.
extension MemoryItemStore {
    /// magic, unique-titles flag, item count, the items (id, price, createdAt, filter code, title, notes), then
    /// the page orders if sorted: all little-endian.
    func encoded() -> [UInt8] {
        var bytes = Self.magic
        bytes.append(uniqueTitles == nil ? 0 : 1)
        let items = slots.compactMap { $0 }
        append(UInt64(items.count), to: &bytes)
        for item in items {
            append(UInt64(bitPattern: item.id), to: &bytes)
            append(item.price.bitPattern, to: &bytes)
            append(item.createdAt.timeIntervalSince1970.bitPattern, to: &bytes)
            bytes.append(ItemFilter(matching: item).code)
            for text in [item.title, item.notes] {
                append(UInt64(text.utf8.count), to: &bytes)
                bytes.append(contentsOf: text.utf8)
            }
        }
        // Page orders with unplaced writes are left out: the next open sorts them at its first page.
        let orders = unsortedIDs.isEmpty ? pageOrders : nil
        bytes.append(orders == nil ? 0 : 1)
        for order in orders ?? [] {
            append(UInt64(order.count), to: &bytes)
            for id in order { append(UInt64(bitPattern: id), to: &bytes) }
        }
        return bytes
    }

    private func append(_ value: UInt64, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    func read(_ data: Data) throws {
        try data.withUnsafeBytes { raw in
            var reader = DumpReader(bytes: raw, path: dump.path)
            guard try Array(reader.bytes(Self.magic.count)) == Self.magic else {
                throw BenchError("\(dump.path) is not a memory store dump")
            }
            let titlesAreUnique = try reader.byte() == 1
            let count = try reader.count()
            for _ in 0..<count {
                let id = Int64(bitPattern: try reader.word())
                let price = Double(bitPattern: try reader.word())
                let createdAt = Double(bitPattern: try reader.word())
                guard let filter = ItemFilter(code: try reader.byte()) else {
                    throw BenchError("\(dump.path): item \(id) has a bad filter code")
                }
                let title = try reader.text()
                let notes = try reader.text()
                try insert([
                    Item(
                        id: id, title: title, notes: notes, isInStock: filter.isInStock, priority: filter.priority,
                        price: price, createdAt: Date(timeIntervalSince1970: createdAt))
                ])
            }
            if try reader.byte() == 1 {
                pageOrders = try (0..<4).map { _ in
                    try (0..<reader.count()).map { _ in Int64(bitPattern: try reader.word()) }
                }
            }
            if titlesAreUnique { uniqueTitles = Set(slots.compactMap { $0?.title }) }
            guard reader.atEnd else { throw BenchError("\(dump.path): bytes after the end") }
        }
        changed = false
    }
}

/// Reads a dump front to back, throwing on a short file.
private struct DumpReader {
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
