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

    /// The index file's bytes: its header (magic, version, commit `sequence`, each priority's count), then the rows
    /// of each priority's two buckets, out of stock first.
    private static func encoded(_ buckets: [[SortEntry]], sequence: UInt64) -> [UInt8] {
        let total = buckets.reduce(0) { $0 + $1.count }
        var bytes = [UInt8](repeating: 0, count: headerSize + 4 * total)
        bytes.withUnsafeMutableBytes { buffer in
            buffer.copyBytes(from: magic)
            buffer.storeBytes(of: UInt32(1).littleEndian, toByteOffset: 8, as: UInt32.self)
            buffer.storeBytes(of: sequence.littleEndian, toByteOffset: 16, as: UInt64.self)
            var offset = headerSize
            for priority in 0..<4 {
                // Out of stock (bit 0 clear) before in stock.
                let keys = [priority << 1, priority << 1 | 1]
                let count = keys.reduce(0) { $0 + buckets[$1].count }
                buffer.storeBytes(of: UInt64(count).littleEndian, toByteOffset: 24 + 8 * priority, as: UInt64.self)
                for key in keys {
                    for entry in buckets[key] {
                        buffer.storeBytes(of: entry.row.littleEndian, toByteOffset: offset, as: UInt32.self)
                        offset += 4
                    }
                }
            }
        }
        return bytes
    }

    /// Sorts the live rows of `view`'s first `rowCount` and writes the index for commit `sequence` (to a temporary
    /// file, flushed, then renamed over the old one).
    ///
    /// `liveCounts`, the live rows per `ItemFilter.code`, sizes the buckets.
    static func build(
        in directory: URL, sequence: UInt64, view: PackedItemStore.MappedView, rowCount: Int, liveCounts: [Int],
        flushes: Bool
    ) throws -> OrderIndex {
        // One bucket per (priority, isInStock); a bucket sorts on the title's first 16 bytes, then whole titles.
        var buckets = liveCounts.map { count in
            var bucket: [SortEntry] = []
            bucket.reserveCapacity(count)
            return bucket
        }
        let (rows, arena) = (view.rows, view.arena)
        for row in 0..<rowCount where !view.isDeleted(row) {
            let title = view.titleReference(ofRow: row)
            let (high, low) = prefix(of: title, in: arena)
            buckets[view.filterKey(ofRow: row)].append(SortEntry(high: high, low: low, row: UInt32(row)))
        }
        // Whole titles, then ids, for entries whose 16-byte prefixes tie.
        let inOrder = { (a: SortEntry, b: SortEntry) -> Bool in
            if a.high != b.high { return a.high < b.high }
            if a.low != b.low { return a.low < b.low }
            let first = ItemRow(rows, at: StoreHeader.rowsStart + Int(a.row) * ItemRow.size)
            let second = ItemRow(rows, at: StoreHeader.rowsStart + Int(b.row) * ItemRow.size)
            let order = compare(first.title, second.title, in: arena)
            return order != 0 ? order < 0 : first.id < second.id
        }
        for index in buckets.indices {
            buckets[index].withUnsafeMutableBufferPointer { radixSort($0, byte: 0, by: inOrder) }
        }
        let bytes = encoded(buckets, sequence: sequence)
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

    /// A row and its title's first 16 bytes, as two big-endian integers: comparing them compares the bytes, so
    /// that most comparisons never read the arena.
    private struct SortEntry {
        var high: UInt64
        var low: UInt64
        var row: UInt32
    }

    /// Sorts `entries`, which agree on their prefixes' first `byte` bytes, into `inOrder`'s order: a radix sort
    /// on the prefix a byte at a time (in place, American flag), `inOrder` for short runs and for prefixes that
    /// tie.
    ///
    /// A byte that every entry shares is skipped without moving any.
    private static func radixSort(
        _ entries: UnsafeMutableBufferPointer<SortEntry>, byte: Int, by inOrder: (SortEntry, SortEntry) -> Bool
    ) {
        if entries.count <= radixCutoff || byte == 16 {
            var run = entries
            run.sort(by: inOrder)
            return
        }
        @inline(__always)
        func digit(_ entry: SortEntry) -> Int {
            Int(truncatingIfNeeded: (byte < 8 ? entry.high << (8 * byte) : entry.low << (8 * (byte - 8))) >> 56)
        }
        withUnsafeTemporaryAllocation(of: Int.self, capacity: 3 * 256) { table in
            guard let counts = table.baseAddress else { return }
            let (next, ends) = (counts + 256, counts + 512)
            counts.initialize(repeating: 0, count: 256)
            for entry in entries { counts[digit(entry)] += 1 }
            var start = 0
            for value in 0..<256 {
                next[value] = start
                start += counts[value]
                ends[value] = start
            }
            if counts[digit(entries[0])] < entries.count {
                for value in 0..<256 {
                    while next[value] < ends[value] {
                        // Carry the entry at this bucket's next place to its own bucket, and so on, until one
                        // that belongs here comes back.
                        var entry = entries[next[value]]
                        var target = digit(entry)
                        while target != value {
                            swap(&entry, &entries[next[target]])
                            next[target] += 1
                            target = digit(entry)
                        }
                        entries[next[value]] = entry
                        next[value] += 1
                    }
                }
            }
            var lower = 0
            for value in 0..<256 where ends[value] > lower {
                radixSort(
                    UnsafeMutableBufferPointer(rebasing: entries[lower..<ends[value]]), byte: byte + 1, by: inOrder)
                lower = ends[value]
            }
        }
    }

    /// Runs this short are sorted by comparison.
    private static let radixCutoff = 48

    /// A string's first 16 bytes as two big-endian integers, zero-padded: integer order is byte order for the
    /// prefix (a shorter string that the padding makes equal is told apart by the whole comparison).
    @inline(__always)
    private static func prefix(of string: ItemRow.StringReference, in arena: UnsafeRawBufferPointer) -> (
        UInt64, UInt64
    ) {
        if string.length >= 16 {
            return (
                UInt64(bigEndian: arena.loadUnaligned(fromByteOffset: string.offset, as: UInt64.self)),
                UInt64(bigEndian: arena.loadUnaligned(fromByteOffset: string.offset + 8, as: UInt64.self))
            )
        }
        var padded: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &padded) { buffer in
            buffer.copyMemory(
                from: UnsafeRawBufferPointer(rebasing: arena[string.offset..<string.offset + string.length]))
        }
        return (UInt64(bigEndian: padded.0), UInt64(bigEndian: padded.1))
    }

    /// Byte-wise comparison of two arena strings: negative, zero or positive.
    static func compare(
        _ a: ItemRow.StringReference, _ b: ItemRow.StringReference, in arena: UnsafeRawBufferPointer
    ) -> Int {
        let common = min(a.length, b.length)
        guard common > 0, let base = arena.baseAddress else { return a.length - b.length }
        let order = Int(memcmp(base + a.offset, base + b.offset, common))
        return order != 0 ? order : a.length - b.length
    }
}
