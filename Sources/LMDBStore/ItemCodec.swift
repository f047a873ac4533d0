import Foundation
import PersistenceBench

/// The `lmdb` store's byte layouts for items and their title index.
///
/// Format version 1.
///
/// **Item key**: the id with its sign bit flipped, as 8 big-endian bytes, so that LMDB's byte-wise key order is
/// id order, negative ids included (cursors scan in id order, and a load in ascending ids can use `MDB_APPEND`).
/// Id 1 is `80 00 00 00 00 00 00 01`.
///
/// **Item value** (the id is not repeated):
///
/// | bytes | field |
/// |---|---|
/// | 0 | flags: bit 0 `isInStock`; bits 1–2 `priority` (0 none, 1 low, 2 medium, 3 high); bits 3–7 zero |
/// | 1–8 | `price`: IEEE 754 binary64, little-endian |
/// | 9–16 | `createdAt`: IEEE 754 binary64 seconds since 2001-01-01 00:00 UTC (Foundation's reference date), little-endian |
/// | 17… | `title`: length as an unsigned LEB128 varint, then its UTF-8 bytes |
/// | … | `notes`: the same |
///
/// **Title index** (a `MDB_DUPSORT` database): key = 2 bytes, `[priority code, isInStock 0/1]`; each value =
/// title UTF-8 bytes, a 0 byte, the id as 8 bytes encoded as in the item key. LMDB sorts a key's values byte-wise, which is
/// `ItemPageQuery`'s order (title byte-wise, then id) because the 0 terminator sorts before any title byte.
enum ItemCodec {
    static let formatVersion: UInt8 = 1
    /// The fixed-width head of a value: flags, price, createdAt.
    static let fixedSize = 17
    /// LMDB's limit on a `MDB_DUPSORT` value (its default maximum key size, 511) less the terminator and id.
    static let maximumIndexedTitleLength = 511 - 9

    // MARK: Keys

    private static let signBit: UInt64 = 1 << 63

    /// Runs `body` with the 8-byte key of `id`.
    @inline(__always)
    static func withKey<T>(_ id: Int64, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        try withUnsafeBytes(of: (UInt64(bitPattern: id) ^ signBit).bigEndian, body)
    }

    static func id(fromKey key: UnsafeRawBufferPointer) throws -> Int64 {
        guard key.count == 8 else { throw LMDBError.corrupted("reading an item key", "a key of \(key.count) bytes") }
        return Int64(bitPattern: UInt64(bigEndian: key.loadUnaligned(as: UInt64.self)) ^ signBit)
    }

    // MARK: Values

    static func encodedSize(of item: Item) -> Int {
        let title = item.title.utf8.count
        let notes = item.notes.utf8.count
        return fixedSize + varintSize(title) + title + varintSize(notes) + notes
    }

    /// Writes `item` into `buffer`, which holds exactly `encodedSize(of: item)` bytes.
    static func encode(_ item: Item, into buffer: UnsafeMutableRawBufferPointer) {
        buffer[0] = ItemFilter(matching: item).code
        buffer.storeBytes(of: item.price.bitPattern.littleEndian, toByteOffset: 1, as: UInt64.self)
        buffer.storeBytes(
            of: item.createdAt.timeIntervalSinceReferenceDate.bitPattern.littleEndian, toByteOffset: 9,
            as: UInt64.self)
        var offset = write(item.title, into: buffer, at: fixedSize)
        offset = write(item.notes, into: buffer, at: offset)
        precondition(offset == buffer.count, "ItemCodec.encodedSize disagrees with encode")
    }

    /// The price in a stored value, read from its fixed-width head without decoding the rest.
    static func price(from bytes: UnsafeRawBufferPointer) throws -> Double {
        guard bytes.count >= fixedSize + 2 else {
            throw LMDBError.corrupted("reading an item's price", "value of \(bytes.count) bytes")
        }
        return Double(bitPattern: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 1, as: UInt64.self)))
    }

    /// The item stored under key `id` in `bytes`; throws on bytes that do not follow the layout.
    static func decode(id: Int64, from bytes: UnsafeRawBufferPointer) throws -> Item {
        guard bytes.count >= fixedSize + 2 else { throw corrupted(id, "value of \(bytes.count) bytes") }
        guard let flags = ItemFilter(code: bytes[0]) else { throw corrupted(id, "flags byte \(bytes[0])") }
        let price = Double(bitPattern: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 1, as: UInt64.self)))
        let createdAt = Double(
            bitPattern: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 9, as: UInt64.self)))
        var offset = fixedSize
        let title = try readString(bytes, at: &offset, id: id, field: "title")
        let notes = try readString(bytes, at: &offset, id: id, field: "notes")
        guard offset == bytes.count else { throw corrupted(id, "\(bytes.count - offset) bytes after the notes") }
        return Item(
            id: id, title: title, notes: notes, isInStock: flags.isInStock, priority: flags.priority,
            price: price, createdAt: Date(timeIntervalSinceReferenceDate: createdAt))
    }

    /// Runs `body` with the title index key for a priority and stock state: `[priority code, isInStock]`.
    @inline(__always)
    static func withTitleIndexKey<T>(
        priority: Item.Priority?, isInStock: Bool, _ body: (UnsafeRawBufferPointer) throws -> T
    ) rethrows -> T {
        try withUnsafeBytes(of: (ItemFilter.priorityCode(priority), isInStock ? 1 : 0) as (UInt8, UInt8), body)
    }

    /// The positions of `batch`'s items in the order of their title index entries: by key (priority code, then
    /// stock), then `ItemPageQuery`'s order (with the stock equal, title bytes, then id).
    ///
    /// Positions are sorted, not items: sorting the items copied one (its strings retained, then released) at every
    /// move and comparison of the merge sort, a fifth of `lmdb`'s insert at 1M (perf); here a comparison reads two
    /// titles in place.
    static func titleIndexOrder(of batch: [Item]) -> [Int] {
        let codes = batch.map { ItemFilter(matching: $0).code }
        return batch.withUnsafeBufferPointer { items in
            codes.withUnsafeBufferPointer { codes in
                (0..<items.count).sorted { a, b in
                    if codes[a] != codes[b] { return codes[a] < codes[b] }
                    if items[a].title != items[b].title {
                        return items[a].title.utf8.lexicographicallyPrecedes(items[b].title.utf8)
                    }
                    return items[a].id < items[b].id
                }
            }
        }
    }

    /// Runs `body` with the title index value of an item: title bytes, 0, big-endian id.
    static func withTitleIndexValue<T>(
        title: String, id: Int64, _ body: (UnsafeRawBufferPointer) throws -> T
    ) throws -> T {
        var title = title
        return try title.withUTF8 { utf8 in
            guard utf8.count <= maximumIndexedTitleLength else {
                throw LMDBError.corrupted(
                    "indexing item \(id)",
                    "a title of \(utf8.count) UTF-8 bytes; the title index holds at most \(maximumIndexedTitleLength)")
            }
            guard !utf8.contains(0) else {
                throw LMDBError.corrupted("indexing item \(id)", "its title contains a 0 byte, the index terminator")
            }
            return try withUnsafeTemporaryAllocation(byteCount: utf8.count + 9, alignment: 1) { buffer in
                UnsafeMutableRawBufferPointer(rebasing: buffer[..<utf8.count]).copyMemory(
                    from: UnsafeRawBufferPointer(utf8))
                buffer[utf8.count] = 0
                withKey(id) { key in
                    UnsafeMutableRawBufferPointer(rebasing: buffer[(utf8.count + 1)...]).copyMemory(from: key)
                }
                return try body(UnsafeRawBufferPointer(buffer))
            }
        }
    }

    /// The title's UTF-8 bytes at the start of a title index value (the caller checked it with
    /// `id(fromTitleIndexValue:)`).
    @inline(__always)
    static func title(fromTitleIndexValue value: UnsafeRawBufferPointer) -> UnsafeBufferPointer<UInt8> {
        UnsafeRawBufferPointer(rebasing: value[..<(value.count - 9)]).assumingMemoryBound(to: UInt8.self)
    }

    /// The id at the end of a title index value.
    static func id(fromTitleIndexValue value: UnsafeRawBufferPointer) throws -> Int64 {
        guard value.count >= 9, value[value.count - 9] == 0 else {
            throw LMDBError.corrupted("reading the title index", "an entry of \(value.count) bytes")
        }
        return try id(fromKey: UnsafeRawBufferPointer(rebasing: value[(value.count - 8)...]))
    }

    // MARK: Parts

    private static func varintSize(_ value: Int) -> Int {
        var size = 1
        var rest = value >> 7
        while rest != 0 {
            size += 1
            rest >>= 7
        }
        return size
    }

    private static func write(_ string: String, into buffer: UnsafeMutableRawBufferPointer, at start: Int) -> Int {
        var string = string
        return string.withUTF8 { utf8 in
            var offset = start
            var length = utf8.count
            while length >= 0x80 {
                buffer[offset] = UInt8(truncatingIfNeeded: length) | 0x80
                length >>= 7
                offset += 1
            }
            buffer[offset] = UInt8(length)
            offset += 1
            UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<offset + utf8.count]).copyMemory(
                from: UnsafeRawBufferPointer(utf8))
            return offset + utf8.count
        }
    }

    private static func readString(_ bytes: UnsafeRawBufferPointer, at offset: inout Int, id: Int64, field: String)
        throws -> String
    {
        var length = 0
        var shift = 0
        while true {
            guard offset < bytes.count, shift < 35 else { throw corrupted(id, "the length of its \(field)") }
            let byte = bytes[offset]
            offset += 1
            length |= Int(byte & 0x7f) << shift
            if byte < 0x80 { break }
            shift += 7
        }
        guard length <= bytes.count - offset else {
            throw corrupted(id, "a \(field) of \(length) bytes with \(bytes.count - offset) left")
        }
        let utf8 = UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + length])
        offset += length
        return String(decoding: utf8.assumingMemoryBound(to: UInt8.self), as: UTF8.self)
    }

    private static func corrupted(_ id: Int64, _ problem: String) -> LMDBError {
        .corrupted("decoding item \(id)", problem)
    }
}
