import Foundation
import PersistenceBench

/// Files that only grow, committed together by a state file of two checksummed 4 KiB slots written alternately
/// (as `StoreHeader`'s): what `packed` keeps its graph and its time profile in.
///
/// Each file starts with a 64-byte `FileMagic` header. A commit appends to any of the files beyond their committed
/// lengths, flushes what it appended, then writes the slot that does not hold the current state, with the new
/// lengths and counters, and flushes it. Opening takes the valid slot with the higher sequence and cuts every file
/// to the length it commits: what a crash left half-written is gone.
///
/// A slot, integers little-endian: the set's magic, format version 1, the sequence, each file's length, each
/// counter; the checksum of those bytes in the slot's last 8.
final class AppendOnlyFiles {
    static let slotSize = 4096
    static let formatVersion: UInt64 = 1

    let files: [MappedFile]
    /// The committed length of each file.
    private(set) var lengths: [Int]
    /// The committed counters: numbers the owner keeps with the files (live counts, say).
    private(set) var counters: [Int]
    private(set) var sequence: UInt64 = 0
    private let stateFile: MappedFile
    private let magic: UInt64

    /// Opens (or creates) the set in `directory`: `state` holds the slots, `files` are named with their magics.
    ///
    /// With `flushes` false, commits flush nothing (`packed+nosync`).
    init(
        directory: URL, state: String, magic: String, files names: [(name: String, magic: String)], counters: Int,
        flushes: Bool
    ) throws {
        let opened = try MappedFile.openAll([state] + names.map(\.name), in: directory, flushes: flushes)
        stateFile = opened[0]
        files = Array(opened.dropFirst())
        for (file, name) in zip(files, names) { try FileMagic.prepare(file, magic: name.magic) }
        self.magic = Array(magic.utf8 + [0, 0, 0, 0, 0, 0, 0, 0]).prefix(8).enumerated().reduce(0) {
            $0 | UInt64($1.element) << (8 * UInt64($1.offset))
        }
        lengths = Array(repeating: FileMagic.headerSize, count: names.count)
        self.counters = Array(repeating: 0, count: counters)
        try recover()
    }

    func close() {
        for file in files + [stateFile] { file.close() }
    }

    /// Flushes every file, whatever the set's commits do: a clean close's flush.
    func flush() throws {
        for file in files + [stateFile] { try file.flush() }
    }

    private var fieldCount: Int { 3 + lengths.count + counters.count }

    private func recover() throws {
        if stateFile.length < 2 * Self.slotSize {
            try initialize()
            return
        }
        let slots = try (0..<2).compactMap { slot in
            try decode(
                UnsafeRawBufferPointer(rebasing: stateFile.bytes[slot * Self.slotSize..<(slot + 1) * Self.slotSize]))
        }
        guard let committed = slots.max(by: { $0.sequence < $1.sequence }) else {
            // Neither slot whole and nothing appended to any file: a creation cut before its slots were flushed (a
            // commit flushes what it appends, and the creation flushed slot 0, before its slot is written).
            guard stateFile.length == 2 * Self.slotSize, files.allSatisfy({ $0.length <= FileMagic.headerSize }) else {
                throw PackedError.corrupted(stateFile.path, "neither state slot has a valid checksum")
            }
            try initialize()
            return
        }
        for (file, length) in zip(files, committed.lengths) {
            guard file.length >= length else {
                throw PackedError.corrupted(file.path, "\(file.length) bytes; \(stateFile.path) commits \(length)")
            }
            if file.length > length { try file.truncate(to: length) }
        }
        (sequence, lengths, counters) = committed
    }

    /// A new set, or one whose creation was cut: the empty state in slot 0 and an empty slot 1, flushed with the
    /// files' headers.
    private func initialize() throws {
        let bytes =
            encode(sequence: 0, lengths: lengths, counters: counters) + [UInt8](repeating: 0, count: Self.slotSize)
        try bytes.withUnsafeBytes { try stateFile.write($0, at: 0) }
        for file in files + [stateFile] { try file.sync() }
    }

    /// Appends `appended[i]` to file `i` (each after its committed length), flushes those files, then commits
    /// the new lengths and `counters`.
    func commit(appending appended: [Int: [UInt8]], counters newCounters: [Int]) throws {
        precondition(newCounters.count == counters.count)
        var newLengths = lengths
        for (index, bytes) in appended where !bytes.isEmpty {
            try bytes.withUnsafeBytes { try files[index].write($0, at: lengths[index]) }
            try files[index].sync()
            newLengths[index] += bytes.count
        }
        let next = sequence + 1
        try encode(sequence: next, lengths: newLengths, counters: newCounters).withUnsafeBytes {
            try stateFile.write($0, at: Int(next % 2) * Self.slotSize)
        }
        try stateFile.sync()
        (sequence, lengths, counters) = (next, newLengths, newCounters)
    }

    private func encode(sequence: UInt64, lengths: [Int], counters: [Int]) -> [UInt8] {
        var bytes: [UInt8] = []
        let fields = [magic, Self.formatVersion, sequence] + (lengths + counters).map { UInt64($0) }
        for field in fields { withUnsafeBytes(of: field.littleEndian) { bytes.append(contentsOf: $0) } }
        let checksum = bytes.withUnsafeBytes { Checksum.of($0) }
        bytes += [UInt8](repeating: 0, count: Self.slotSize - 8 - bytes.count)
        withUnsafeBytes(of: checksum.littleEndian) { bytes.append(contentsOf: $0) }
        return bytes
    }

    /// The slot's state; nil when it is empty or torn.
    private func decode(_ slot: UnsafeRawBufferPointer) throws -> (sequence: UInt64, lengths: [Int], counters: [Int])? {
        func load(_ field: Int) -> UInt64 {
            UInt64(littleEndian: slot.loadUnaligned(fromByteOffset: 8 * field, as: UInt64.self))
        }
        let checksum = UInt64(littleEndian: slot.loadUnaligned(fromByteOffset: Self.slotSize - 8, as: UInt64.self))
        guard checksum == Checksum.of(UnsafeRawBufferPointer(rebasing: slot[..<(8 * fieldCount)])) else { return nil }
        guard load(0) == magic, load(1) == Self.formatVersion else {
            throw PackedError.corrupted(stateFile.path, "a state slot of another kind or format version")
        }
        return (
            load(2), (0..<lengths.count).map { Int(load(3 + $0)) },
            (0..<counters.count).map { Int(load(3 + lengths.count + $0)) }
        )
    }
}
