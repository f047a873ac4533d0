import Foundation
import PersistenceBench

/// `packed`'s records of a shape, in `records/` (`AppendOnlyFiles`, committed by `records.state`): everything
/// inline, as a format of one's own keeps it.
///
/// - `records.arena`: each version of a record, `RecordCodec`'s bytes after their 4-byte length, appended.
/// - `records.index`: 16 bytes per version written, the record's id and the arena offset of its version, appended;
///   the last entry of an id is the record's current version.
///
/// A commit appends to both, flushes them, then writes and flushes the state slot (three `fdatasync`s); a crash
/// leaves the state of the last slot, the bytes after it cut off at the next open. An update appends the record's
/// new version (what an append-only format does; a `compact` would reclaim the old ones, and none is run). The
/// open reads the index into an array of offsets by id; a page sorts the records of each filter value, in
/// memory, at the first page after the open or after a write that moved a record.
final class PackedRecords: RecordTable {
    let codec: RecordCodec
    private let storage: AppendOnlyFiles
    /// Slot `id` holds the arena offset of record `id`'s current version, or -1.
    private var offsets: [Int] = [-1]
    /// Per filter value, its records' ids in page order; nil until a page sorts them after a write that moved one.
    private var pageOrders: RecordPageOrders?
    static let indexEntrySize = 16

    private enum File: Int { case arena, index }

    init(directory: URL, shape: RecordShape, flushes: Bool) throws {
        codec = RecordCodec(shape: shape)
        storage = try AppendOnlyFiles(
            directory: directory, state: "records.state", magic: "PBRECRD",
            files: [("records.arena", "PBRARNA"), ("records.index", "PBRINDX")], counters: 0, flushes: flushes)
        let index = storage.files[File.index.rawValue].bytes
        let entries = (storage.lengths[File.index.rawValue] - FileMagic.headerSize) / Self.indexEntrySize
        for entry in 0..<entries {
            let start = FileMagic.headerSize + entry * Self.indexEntrySize
            let id = Int(Int64(littleEndian: index.loadUnaligned(fromByteOffset: start, as: Int64.self)))
            let offset = Int(Int64(littleEndian: index.loadUnaligned(fromByteOffset: start + 8, as: Int64.self)))
            guard id > 0, offset >= FileMagic.headerSize, offset < storage.lengths[File.arena.rawValue] else {
                throw PackedError.corrupted(
                    storage.files[File.index.rawValue].path, "entry \(entry): \(id) at \(offset)")
            }
            place(id: id, at: offset)
        }
    }

    func close() { storage.close() }

    func flush() throws { try storage.flush() }

    private func place(id: Int, at offset: Int) {
        if id >= offsets.count { offsets.append(contentsOf: repeatElement(-1, count: id - offsets.count + 1)) }
        offsets[id] = offset
    }

    /// Appends the versions of `records` and their index entries in one commit.
    private func commit(_ records: [Record]) throws {
        var arena: [UInt8] = []
        arena.reserveCapacity(records.reduce(0) { $0 + 4 + codec.size(of: $1) })
        var index: [UInt8] = []
        index.reserveCapacity(records.count * Self.indexEntrySize)
        var offset = storage.lengths[File.arena.rawValue]
        var placed: [(Int, Int)] = []
        for record in records {
            let start = arena.count
            arena.append(contentsOf: repeatElement(0, count: 4))
            codec.encode(record, into: &arena)
            let length = UInt32(arena.count - start - 4)
            withUnsafeBytes(of: length.littleEndian) { arena.replaceSubrange(start..<start + 4, with: $0) }
            for field in [UInt64(bitPattern: record.id), UInt64(offset)] {
                withUnsafeBytes(of: field.littleEndian) { index.append(contentsOf: $0) }
            }
            placed.append((Int(record.id), offset))
            offset += arena.count - start
        }
        try storage.commit(appending: [File.arena.rawValue: arena, File.index.rawValue: index], counters: [])
        for (id, offset) in placed { place(id: id, at: offset) }
    }

    /// One transaction per batch, as `packed`'s items: the batch's versions appended and committed.
    func insert(_ batch: [Record]) throws {
        for record in batch where record.id < offsets.count && offsets[Int(record.id)] >= 0 {
            throw PackedError.corrupted(storage.files[File.index.rawValue].path, "record \(record.id) is stored")
        }
        try commit(batch)
        pageOrders = nil
    }

    func insertDurably(_ record: Record) throws { try insert([record]) }

    func record(id: Int64) throws -> Record? {
        try bytes(of: id).map { try codec.decode(id: id, from: $0) }
    }

    /// The current version of record `id` in the map, or nil.
    private func bytes(of id: Int64) throws -> UnsafeRawBufferPointer? {
        guard id > 0, id < offsets.count, offsets[Int(id)] >= 0 else { return nil }
        let arena = storage.files[File.arena.rawValue]
        let start = offsets[Int(id)]
        let bytes = arena.bytes
        let length = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: start, as: UInt32.self)))
        guard start + 4 + length <= storage.lengths[File.arena.rawValue] else {
            throw PackedError.corrupted(arena.path, "record \(id) runs past the committed arena")
        }
        return UnsafeRawBufferPointer(rebasing: bytes[start + 4..<start + 4 + length])
    }

    func forEachRecord(_ body: (Record) throws -> Void) throws {
        for id in offsets.indices where offsets[id] >= 0 {
            if let record = try record(id: Int64(id)) { try body(record) }
        }
    }

    /// Each changed record's new version appended, in one commit.
    func update(_ changes: [RecordUpdate]) throws {
        var changed: [Int64: Record] = [:]
        var order: [Int64] = []
        for change in changes {
            guard var record = try changed[change.id] ?? record(id: change.id) else {
                throw PackedError.corrupted(storage.files[File.index.rawValue].path, "no record \(change.id) to update")
            }
            change.apply(to: &record)
            if changed.updateValue(record, forKey: change.id) == nil { order.append(change.id) }
            if change.field == codec.shape.filterIndex || change.field == codec.shape.sortIndex { pageOrders = nil }
        }
        try commit(order.compactMap { changed[$0] })
    }

    func page(_ query: RecordPageQuery) throws -> [Record] {
        if pageOrders == nil {
            // Only the filter and sort values are read from each record, not its other fields.
            let shape = codec.shape
            var keys: [(filter: FieldValue, sort: FieldValue, id: Int64)] = []
            for id in offsets.indices.map(Int64.init) {
                guard let bytes = try bytes(of: id) else { continue }
                keys.append(
                    (
                        try codec.value(of: shape.filterIndex, in: bytes, id: id),
                        try codec.value(of: shape.sortIndex, in: bytes, id: id), id
                    ))
            }
            pageOrders = RecordPageOrders(keys)
        }
        return try (pageOrders?.ids(of: query) ?? []).compactMap { try record(id: $0) }
    }
}

extension PackedItemStore: RecordStore {
    package func records(of shape: RecordShape) throws -> any RecordTable {
        if let openedRecords {
            guard openedRecords.codec.shape == shape else {
                throw PackedError.corrupted(directory.path, "records of another shape are open")
            }
            return openedRecords
        }
        let folder = directory.appendingPathComponent("records")
        // Opened first: it creates the folder and flushes its parent, as `packed`'s graph and profile are created.
        let records = try PackedRecords(directory: folder, shape: shape, flushes: flushes)
        // The shape is kept beside the records, so that records of another shape are refused, not misread.
        let shapeFile = folder.appendingPathComponent("shape.json")
        if let stored = try? Data(contentsOf: shapeFile) {
            guard (try? JSONDecoder().decode(RecordShape.self, from: stored)) == shape else {
                records.close()
                throw PackedError.corrupted(shapeFile.path, "it holds records of another shape than \(shape.name)")
            }
        } else {
            try FileSystem.writeDurably(JSONEncoder().encode(shape), to: shapeFile)
        }
        openedRecords = records
        return records
    }
}
