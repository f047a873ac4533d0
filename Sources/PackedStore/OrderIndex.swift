import Foundation

/// `items.order`: the live rows of each priority in `ItemPageQuery` order, as sorted permutation arrays.
///
/// Layout (little-endian): a 64-byte header — magic `PBORDER` and a 0 byte, format version (UInt32, 1), 4 zero
/// bytes, the sequence of the commit that built it (UInt64), the row count of each of the 4 segments (4 × UInt64),
/// 8 zero bytes — then the segments for priority codes 0 (none), 1 (low), 2 (medium), 3 (high), one after the
/// other. A segment is UInt32 row numbers ordered by `isInStock` (false first), title bytes, then id.
///
/// It is rebuilt, not maintained: writes stay appends and in-place changes, and the first `page` after a change
/// sorts every live row again (O(n log n)); a bulk load builds it once at its end. The header of `items.rows`
/// names the sequence of the build it trusts; any other file is stale and ignored.
struct OrderIndex {
    static let fileName = "items.order"
    static let headerSize = 64
    private static let magic = Array("PBORDER\0".utf8)

    private let file: MappedFile
    /// Where each priority's segment starts, in rows, with the total at the end.
    private let segmentStarts: [Int]

    /// The row numbers of one priority's items in page order.
    func segment(priorityCode: Int) -> UnsafeRawBufferPointer {
        let bytes = file.bytes
        let start = Self.headerSize + 4 * segmentStarts[priorityCode]
        let end = Self.headerSize + 4 * segmentStarts[priorityCode + 1]
        return UnsafeRawBufferPointer(rebasing: bytes[start..<end])
    }

    func close() { file.close() }

    func flush() throws { try file.flush() }

    /// The index built by commit `sequence`, or nil when the file is missing or was built by another commit.
    static func open(in directory: URL, sequence: UInt64) throws -> OrderIndex? {
        let path = directory.appendingPathComponent(fileName).path
        guard sequence != 0, FileManager.default.fileExists(atPath: path) else { return nil }
        let file = try MappedFile(path: path, create: false)
        let bytes = file.bytes
        guard bytes.count >= headerSize, Array(bytes[0..<8]) == magic,
            UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 16, as: UInt64.self)) == sequence
        else {
            file.close()
            return nil
        }
        var starts = [0]
        for index in 0..<4 {
            let count = Int(UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 24 + 8 * index, as: UInt64.self)))
            starts.append(starts[index] + count)
        }
        guard bytes.count == headerSize + 4 * starts[4] else {
            file.close()
            throw PackedError.corrupted(path, "\(bytes.count) bytes for \(starts[4]) rows")
        }
        return OrderIndex(file: file, segmentStarts: starts)
    }

    /// Sorts the live rows and writes the index for commit `sequence` (to a temporary file, flushed, then renamed
    /// over the old one).
    static func build(
        in directory: URL, sequence: UInt64, rows: UnsafeRawBufferPointer, rowCount: Int,
        isDeleted: (Int) -> Bool, arena: UnsafeRawBufferPointer, flushes: Bool
    ) throws -> OrderIndex {
        // One bucket per (priority, isInStock); a bucket sorts on the title's first 8 bytes, then whole titles.
        var buckets = [[SortEntry]](repeating: [], count: 8)
        for row in 0..<rowCount where !isDeleted(row) {
            let item = ItemRow(rows, at: StoreHeader.rowsStart + row * ItemRow.size)
            buckets[item.filterKey].append(SortEntry(prefix: prefix(of: item.title, in: arena), row: UInt32(row)))
        }
        for index in buckets.indices {
            buckets[index].sort { a, b in
                if a.prefix != b.prefix { return a.prefix < b.prefix }
                let first = ItemRow(rows, at: StoreHeader.rowsStart + Int(a.row) * ItemRow.size)
                let second = ItemRow(rows, at: StoreHeader.rowsStart + Int(b.row) * ItemRow.size)
                let order = compare(first.title, second.title, in: arena)
                return order != 0 ? order < 0 : first.id < second.id
            }
        }
        let total = buckets.reduce(0) { $0 + $1.count }
        var bytes = [UInt8](repeating: 0, count: headerSize + 4 * total)
        bytes.withUnsafeMutableBytes { buffer in
            buffer.copyBytes(from: magic)
            buffer.storeBytes(of: UInt32(1).littleEndian, toByteOffset: 8, as: UInt32.self)
            buffer.storeBytes(of: sequence.littleEndian, toByteOffset: 16, as: UInt64.self)
            var offset = headerSize
            for priority in 0..<4 {
                // Out of stock (bit 0 clear) before in stock.
                let count = buckets[priority << 1].count + buckets[priority << 1 | 1].count
                buffer.storeBytes(of: UInt64(count).littleEndian, toByteOffset: 24 + 8 * priority, as: UInt64.self)
                for entry in buckets[priority << 1] + buckets[priority << 1 | 1] {
                    buffer.storeBytes(of: entry.row.littleEndian, toByteOffset: offset, as: UInt32.self)
                    offset += 4
                }
            }
        }
        let path = directory.appendingPathComponent(fileName).path
        let temporary = path + ".tmp"
        try? FileManager.default.removeItem(atPath: temporary)
        let file = try MappedFile(path: temporary, create: true, flushes: flushes)
        try bytes.withUnsafeBytes { try file.write($0, at: 0) }
        try file.sync()
        file.close()
        guard rename(temporary, path) == 0 else { throw PackedError.system("rename to", path) }
        guard let index = try open(in: directory, sequence: sequence) else {
            throw PackedError.corrupted(path, "it does not read back as written")
        }
        return index
    }

    private struct SortEntry {
        var prefix: UInt64
        var row: UInt32
    }

    /// A string's first 8 bytes as a big-endian integer, zero-padded: integer order is byte order for the prefix.
    private static func prefix(of string: ItemRow.StringReference, in arena: UnsafeRawBufferPointer) -> UInt64 {
        var value: UInt64 = 0
        for index in 0..<8 {
            value <<= 8
            if index < string.length { value |= UInt64(arena[string.offset + index]) }
        }
        return value
    }

    /// Byte-wise comparison of two arena strings: negative, zero or positive.
    static func compare(
        _ a: ItemRow.StringReference, _ b: ItemRow.StringReference, in arena: UnsafeRawBufferPointer
    ) -> Int {
        let base = arena.baseAddress!
        let common = min(a.length, b.length)
        let order = common == 0 ? 0 : Int(memcmp(base + a.offset, base + b.offset, common))
        return order != 0 ? order : a.length - b.length
    }
}
