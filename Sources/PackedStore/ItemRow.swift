import Foundation
import PersistenceBench

/// One item as a fixed-width, 48-byte row of `items.rows`.
///
/// All integers little-endian.
///
/// | bytes | field |
/// |---|---|
/// | 0–7 | `id`: Int64 |
/// | 8–15 | `price`: IEEE 754 binary64 |
/// | 16–23 | `createdAt`: IEEE 754 binary64 seconds since 2001-01-01 00:00 UTC (Foundation's reference date) |
/// | 24–31 | `title`: a string reference, `offset << 24 | length` into `strings.arena` |
/// | 32–39 | `notes`: the same |
/// | 40 | flags: bit 0 `isInStock`; bits 1–2 `priority` (0 none, 1 low, 2 medium, 3 high) |
/// | 41–43 | zero |
/// | 44–47 | checksum: of the id, price, `createdAt`, flags and the title's and notes' bytes (`ItemRow.checksum`) |
///
/// A string reference holds a 40-bit arena offset (arenas up to 1 TiB) and a 24-bit length (strings up to
/// 16 MiB). The checksum covers the strings' contents, not their offsets, so that `compact` moves strings without
/// recomputing it, and a damaged offset shows as other contents. Reads do not check it; the integrity check
/// (`persistbench verify`, the crash checks) does.
struct ItemRow {
    static let size = 48
    static let maximumStringLength = 1 << 24 - 1
    static let maximumArenaOffset = 1 << 40 - 1

    var id: Int64
    var price: Double
    var createdAt: Double
    var title: StringReference
    var notes: StringReference
    var flags: UInt8
    var checksum: UInt32 = 0

    /// Where a string's UTF-8 bytes are in the arena.
    struct StringReference: Equatable {
        var offset: Int
        var length: Int

        var packed: UInt64 { UInt64(offset) << 24 | UInt64(length) }

        init(offset: Int, length: Int) {
            self.offset = offset
            self.length = length
        }

        init(packed: UInt64) {
            offset = Int(packed >> 24)
            length = Int(packed & 0xFF_FFFF)
        }
    }

    /// The stock and priority, from the flags byte (an `ItemFilter.code`).
    var filter: ItemFilter {
        ItemFilter(priority: ItemFilter.priority(code: flags >> 1 & 0b11), isInStock: flags & 1 != 0)
    }
    /// The index of this row's (priority, isInStock) combination, 0–7: its `ItemFilter.code`.
    var filterKey: Int { Int(flags & 0b111) }

    init(id: Int64, price: Double, createdAt: Double, title: StringReference, notes: StringReference, flags: UInt8) {
        self.id = id
        self.price = price
        self.createdAt = createdAt
        self.title = title
        self.notes = notes
        self.flags = flags
    }

    /// Reads the row at `offset` of `bytes`.
    @inline(__always)
    init(_ bytes: UnsafeRawBufferPointer, at offset: Int) {
        id = Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Int64.self))
        price = Double(
            bitPattern: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self)))
        createdAt = Double(
            bitPattern: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self)))
        title = StringReference(
            packed: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 24, as: UInt64.self)))
        notes = StringReference(
            packed: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 32, as: UInt64.self)))
        flags = bytes[offset + 40]
        checksum = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 44, as: UInt32.self))
    }

    /// The checksum of this row's fields and of its strings' bytes.
    func checksum(title: UnsafeRawBufferPointer, notes: UnsafeRawBufferPointer) -> UInt32 {
        var hash = Checksum.combine(Checksum.of(title), Checksum.of(notes))
        for word in [UInt64(bitPattern: id), price.bitPattern, createdAt.bitPattern, UInt64(flags)] {
            hash = Checksum.combine(hash, word)
        }
        return UInt32(truncatingIfNeeded: hash ^ hash >> 32)
    }

    /// Sets the checksum for these strings (the row's title and notes).
    mutating func seal(title: String, notes: UnsafeRawBufferPointer) {
        var title = title
        checksum = title.withUTF8 { checksum(title: UnsafeRawBufferPointer($0), notes: notes) }
    }

    /// Writes the row at `offset` of `buffer`.
    @inline(__always)
    func write(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) {
        buffer.storeBytes(of: id.littleEndian, toByteOffset: offset, as: Int64.self)
        buffer.storeBytes(of: price.bitPattern.littleEndian, toByteOffset: offset + 8, as: UInt64.self)
        buffer.storeBytes(of: createdAt.bitPattern.littleEndian, toByteOffset: offset + 16, as: UInt64.self)
        buffer.storeBytes(of: title.packed.littleEndian, toByteOffset: offset + 24, as: UInt64.self)
        buffer.storeBytes(of: notes.packed.littleEndian, toByteOffset: offset + 32, as: UInt64.self)
        buffer.storeBytes(of: UInt32(flags).littleEndian, toByteOffset: offset + 40, as: UInt32.self)
        buffer.storeBytes(of: checksum.littleEndian, toByteOffset: offset + 44, as: UInt32.self)
    }
}
