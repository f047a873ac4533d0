import Foundation

/// The committed state of a packed store: two 4 KiB slots at the start of `items.rows`, written alternately.
///
/// A commit writes the slot not holding the current state and flushes it; the valid slot with the higher
/// sequence is the state. A write torn by a crash leaves a slot whose checksum fails, and the other slot, the
/// previous commit, is used. An append (flag bit 2) flushes its rows and strings together with its slot rather than
/// before it: its slot is the state only if every row it appended (rows `appendedRowsFrom..<rowCount`) reads back
/// whole, checksum and strings included; otherwise the other slot, the previous commit, is. Layout of a slot
/// (integers little-endian):
///
/// | bytes | field |
/// |---|---|
/// | 0–7 | magic `PBITEMS` and a 0 byte |
/// | 8–11 | format version: 4 (version 3 flushed every append before its slot; version 2 rows had no checksum; |
/// |  | version 1 also stored a live-row count) |
/// | 12–15 | row size (48) |
/// | 16–23 | sequence: 1 for the first commit, +1 per commit |
/// | 24–31 | rows committed (live and deleted) |
/// | 32–39 | bytes of `strings.arena` committed |
/// | 40–47 | bytes of journal records committed with this state |
/// | 48–55 | checksum of those journal records |
/// | 56–63 | arena bytes no longer referenced (reclaimed by `compact`) |
/// | 64–71 | flags: bit 0, row ids ascend in row order; bit 1, titles are unique (after `unique-title`); bit 2, the |
/// |  | rows this commit appended were flushed with this slot, to be checked before it is trusted |
/// | 72–79 | sequence of the commit that built `items.order`; 0 when it is stale |
/// | 80–143 | live rows per (priority, isInStock), 8 counts, index `ItemFilter.code` |
/// | 144–151 | rows committed before this commit: the rows it appended start here |
/// | 152–4087 | zero |
/// | 4088–4095 | checksum of bytes 0–151 |
struct StoreHeader: Equatable {
    static let slotSize = 4096
    static let rowsStart = 2 * slotSize
    static let magic: UInt64 = 0x0053_4D45_5449_4250  // "PBITEMS\0" read as a little-endian integer
    static let formatVersion: UInt32 = 4
    static let fieldsSize = 152

    var sequence: UInt64 = 0
    var rowCount = 0
    var arenaLength = FileMagic.headerSize
    var journalLength = 0
    var journalChecksum: UInt64 = 0
    var deadArenaBytes = 0
    var rowsAscendByID = true
    var titlesAreUnique = false
    var orderIndexSequence: UInt64 = 0
    var counts = [Int](repeating: 0, count: 8)
    /// The rows committed before this commit; rows from here to `rowCount` are the ones it appended.
    var appendedRowsFrom = 0
    /// Whether this commit's appended rows and strings were flushed with its slot, not before it: an open trusts
    /// the slot only once they read back whole.
    var appendedWithSlot = false

    /// The slot a header with this sequence is written to.
    var slot: Int { Int(sequence % 2) }

    func encode() -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: Self.slotSize)
        bytes.withUnsafeMutableBytes { buffer in
            func store(_ value: UInt64, _ offset: Int) {
                buffer.storeBytes(of: value.littleEndian, toByteOffset: offset, as: UInt64.self)
            }
            store(Self.magic, 0)
            buffer.storeBytes(of: Self.formatVersion.littleEndian, toByteOffset: 8, as: UInt32.self)
            buffer.storeBytes(of: UInt32(ItemRow.size).littleEndian, toByteOffset: 12, as: UInt32.self)
            store(sequence, 16)
            store(UInt64(rowCount), 24)
            store(UInt64(arenaLength), 32)
            store(UInt64(journalLength), 40)
            store(journalChecksum, 48)
            store(UInt64(deadArenaBytes), 56)
            store((rowsAscendByID ? 1 : 0) | (titlesAreUnique ? 2 : 0) | (appendedWithSlot ? 4 : 0), 64)
            store(orderIndexSequence, 72)
            for (index, count) in counts.enumerated() { store(UInt64(count), 80 + 8 * index) }
            store(UInt64(appendedRowsFrom), 144)
            store(Checksum.of(UnsafeRawBufferPointer(rebasing: buffer[..<Self.fieldsSize])), Self.slotSize - 8)
        }
        return bytes
    }

    /// The slot's header, nil when the slot is empty or torn (its checksum fails), or an error for a slot from
    /// another format.
    static func decode(_ slot: UnsafeRawBufferPointer, path: String) throws -> StoreHeader? {
        func load(_ offset: Int) -> UInt64 {
            UInt64(littleEndian: slot.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        }
        let stored = load(slotSize - 8)
        guard stored == Checksum.of(UnsafeRawBufferPointer(rebasing: slot[..<fieldsSize])) else { return nil }
        guard load(0) == magic else { throw PackedError.corrupted(path, "a header without the PBITEMS magic") }
        let version = UInt32(littleEndian: slot.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
        let rowSize = UInt32(littleEndian: slot.loadUnaligned(fromByteOffset: 12, as: UInt32.self))
        guard version == formatVersion, rowSize == ItemRow.size else {
            throw PackedError.corrupted(
                path, "format version \(version) with \(rowSize)-byte rows; this build reads version \(formatVersion)")
        }
        var header = StoreHeader()
        header.sequence = load(16)
        header.rowCount = Int(load(24))
        header.arenaLength = Int(load(32))
        header.journalLength = Int(load(40))
        header.journalChecksum = load(48)
        header.deadArenaBytes = Int(load(56))
        header.rowsAscendByID = load(64) & 1 != 0
        header.titlesAreUnique = load(64) & 2 != 0
        header.appendedWithSlot = load(64) & 4 != 0
        header.orderIndexSequence = load(72)
        header.counts = (0..<8).map { Int(load(80 + 8 * $0)) }
        header.appendedRowsFrom = Int(load(144))
        guard header.appendedRowsFrom <= header.rowCount else {
            throw PackedError.corrupted(
                path, "a header appending rows from \(header.appendedRowsFrom) of \(header.rowCount)")
        }
        return header
    }
}

/// A 64-bit checksum of a byte range (a multiply–rotate mix; not cryptographic): 32 bytes a round in four lanes
/// whose multiplies do not wait on each other, then eight bytes at a time, then the tail.
enum Checksum {
    static func of(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(bytes.count)
        var offset = 0
        @inline(__always)
        func word(_ at: Int) -> UInt64 { bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self) }
        if bytes.count >= 32 {
            var lanes = (hash, hash &+ 1, hash &+ 2, hash &+ 3)
            while offset + 32 <= bytes.count {
                lanes = (
                    mix(lanes.0, word(offset)), mix(lanes.1, word(offset + 8)), mix(lanes.2, word(offset + 16)),
                    mix(lanes.3, word(offset + 24))
                )
                offset += 32
            }
            hash = mix(mix(mix(mix(hash, lanes.0), lanes.1), lanes.2), lanes.3)
        }
        while offset + 8 <= bytes.count {
            hash = mix(hash, word(offset))
            offset += 8
        }
        var tail: UInt64 = 0
        for index in offset..<bytes.count { tail |= UInt64(bytes[index]) << (8 * UInt64(index - offset)) }
        return mix(hash, tail)
    }

    /// `hash` with one more 64-bit word mixed in.
    @inline(__always)
    static func combine(_ hash: UInt64, _ word: UInt64) -> UInt64 { mix(hash, word) }

    @inline(__always)
    private static func mix(_ hash: UInt64, _ word: UInt64) -> UInt64 {
        let value = (hash ^ word) &* 0xFF51_AFD7_ED55_8CCD
        return (value << 31 | value >> 33) &* 0xC4CE_B9FE_1A85_EC53
    }
}

/// The 64-byte header that opens `strings.arena`, `items.tombstones` and `items.journal`: an 8-byte magic
/// (`PBARENA`, `PBTOMBS`, `PBJOURN`, each with a 0 byte), a 4-byte little-endian format version (1), then zeros.
enum FileMagic {
    static let headerSize = 64
    static let version: UInt32 = 1

    /// Writes the header into a new, empty file, or checks the one an existing file has.
    static func prepare(_ file: MappedFile, magic: String) throws {
        var header = [UInt8](repeating: 0, count: FileMagic.headerSize)
        let name = Array(magic.utf8)
        precondition(name.count < 8, "magic \(magic) must be under 8 bytes")
        header.replaceSubrange(0..<name.count, with: name)
        header.withUnsafeMutableBytes { $0.storeBytes(of: version.littleEndian, toByteOffset: 8, as: UInt32.self) }
        if file.length == 0 {
            try header.withUnsafeBytes { try file.write($0, at: 0) }
            return
        }
        guard file.length >= FileMagic.headerSize else {
            throw PackedError.corrupted(
                file.path, "\(file.length) bytes, shorter than its \(FileMagic.headerSize)-byte header")
        }
        let found = Array(file.bytes[0..<12])
        guard found[0..<8] == header[0..<8] else {
            throw PackedError.corrupted(file.path, "it does not start with the \(magic) magic")
        }
        guard found[8..<12] == header[8..<12] else {
            throw PackedError.corrupted(file.path, "a format version other than \(version)")
        }
    }
}
