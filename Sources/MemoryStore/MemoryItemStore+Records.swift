import Foundation
import PersistenceBench

/// Records of a shape in the heap stores: an array indexed by id, as items are, and per filter value the ids in
/// page order, sorted by the first page after a write that moved one (a bulk load, a change of the filter or sort
/// field). `json` and `plist` keep them in their document, each record keyed by its field names as an app's
/// Codable type would be (a date a `Date`, a blob a `Data`); `memory` dumps them at close in `RecordCodec`'s bytes.
extension MemoryItemStore: RecordStore {
    static let recordsDumpName = "records.dump"

    package func records(of shape: RecordShape) throws -> any RecordTable {
        if let table = recordTable {
            guard table.shape == shape else {
                throw BenchError("\(name): holds records of shape \(table.shape.name), not \(shape.name)")
            }
            return table
        }
        let table = MemoryRecordTable(shape: shape, store: self)
        recordTable = table
        return table
    }

    /// `memory`'s records at close: the shape as JSON, then each record's id and `RecordCodec` bytes.
    func writeRecordsDump() throws {
        guard let table = recordTable, table.unsaved else { return }
        var dump = DumpWriter(bytes: Self.magic)
        dump.text(String(decoding: try JSONEncoder().encode(table.shape), as: UTF8.self))
        let codec = RecordCodec(shape: table.shape)
        let records = table.slots.compactMap { $0 }
        dump.count(records.count)
        for record in records {
            dump.word(UInt64(bitPattern: record.id))
            let bytes = codec.encode(record)
            dump.count(bytes.count)
            dump.bytes.append(contentsOf: bytes)
        }
        try FileSystem.writeAtomically(
            Data(dump.bytes), to: file.deletingLastPathComponent().appendingPathComponent(Self.recordsDumpName))
        table.unsaved = false
    }

    /// Reads `memory`'s records dump, if the store has one (at open, untimed).
    func readRecordsDump(in directory: URL) throws {
        let url = directory.appendingPathComponent(Self.recordsDumpName)
        guard FileManager.default.fileExists(atPath: url.path) else { return }
        let data = try Data(contentsOf: url)
        let records: RecordsDocument = try data.withUnsafeBytes { raw in
            var dump = DumpReader(bytes: raw, path: url.path)
            guard try Array(dump.bytes(Self.magic.count)) == Self.magic else {
                throw BenchError("\(url.path) is not a memory records dump")
            }
            let shape = try JSONDecoder().decode(RecordShape.self, from: Data(try dump.text().utf8))
            let codec = RecordCodec(shape: shape)
            let records = try (0..<dump.count()).map { _ in
                let id = Int64(bitPattern: try dump.word())
                return try codec.decode(id: id, from: try dump.bytes(try dump.count()))
            }
            return RecordsDocument(shape: shape, records: records)
        }
        try load(records)
    }

    /// Fills the table from a decoded document's or dump's records.
    func load(_ document: RecordsDocument) throws {
        let table = MemoryRecordTable(shape: document.shape, store: self)
        try table.place(document.records)
        table.unsaved = false
        recordTable = table
    }
}

final class MemoryRecordTable: RecordTable {
    let shape: RecordShape
    unowned let store: MemoryItemStore
    /// Slot `id` holds record `id`, or nil; slot 0 is never used.
    var slots: [Record?] = [nil]
    /// Per filter value, its records' ids in page order; nil until a page sorts them after a write that moved one.
    var pageOrders: RecordPageOrders?
    /// Whether `memory`'s dump lacks a write.
    var unsaved = false

    init(shape: RecordShape, store: MemoryItemStore) {
        self.shape = shape
        self.store = store
    }

    func place(_ batch: [Record]) throws {
        for record in batch {
            guard record.id > 0, record.id < Int64(UInt32.max) else {
                throw BenchError("\(store.name): record id \(record.id)")
            }
            let id = Int(record.id)
            if id < slots.count, slots[id] != nil { throw BenchError("\(store.name): record \(id) is already stored") }
            if id >= slots.count { slots.append(contentsOf: repeatElement(nil, count: id - slots.count + 1)) }
            slots[id] = record
        }
        pageOrders = nil
        unsaved = true
        store.unsaved = true
    }

    /// One batch of a bulk load: in the heap only; the load's end (`finishInserting`) commits it, as for items.
    func insert(_ batch: [Record]) throws { try place(batch) }

    func insertDurably(_ record: Record) throws {
        try place([record])
        try store.commit()
    }

    func record(id: Int64) throws -> Record? {
        id > 0 && id < Int64(slots.count) ? slots[Int(id)] : nil
    }

    func forEachRecord(_ body: (Record) throws -> Void) throws {
        for case let record? in slots { try body(record) }
    }

    func update(_ changes: [RecordUpdate]) throws {
        for change in changes {
            guard change.id > 0, change.id < Int64(slots.count), var record = slots[Int(change.id)] else {
                throw BenchError("\(store.name): no record \(change.id) to update")
            }
            change.apply(to: &record)
            slots[Int(change.id)] = record
            if change.field == shape.filterIndex || change.field == shape.sortIndex { pageOrders = nil }
        }
        unsaved = true
        store.unsaved = true
        try store.commit()
    }

    func page(_ query: RecordPageQuery) throws -> [Record] {
        let (filter, sort) = (shape.filterIndex, shape.sortIndex)
        let orders =
            pageOrders
            ?? RecordPageOrders(slots.lazy.compactMap { $0 }.map { ($0.values[filter], $0.values[sort], $0.id) })
        pageOrders = orders
        return orders.ids(of: query).compactMap { slots[Int($0)] }
    }
}

/// A heap store's records as `json` and `plist` keep them: the shape, then the records, each a keyed container
/// of its field names.
struct RecordsDocument: Codable {
    var shape: RecordShape
    var records: [Record]

    private enum Keys: String, CodingKey { case shape, records }

    private struct FieldKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(shape: RecordShape, records: [Record]) {
        self.shape = shape
        self.records = records
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        let shape = try container.decode(RecordShape.self, forKey: .shape)
        var list = try container.nestedUnkeyedContainer(forKey: .records)
        var records: [Record] = []
        while !list.isAtEnd {
            let fields = try list.nestedContainer(keyedBy: FieldKey.self)
            let id = try fields.decode(Int64.self, forKey: FieldKey(stringValue: "id"))
            let values: [FieldValue] = try shape.fields.map { field in
                let key = FieldKey(stringValue: field.name)
                switch field.type {
                case .integer: return .integer(try fields.decode(Int64.self, forKey: key))
                case .double: return .double(try fields.decode(Double.self, forKey: key))
                case .bool: return .bool(try fields.decode(Bool.self, forKey: key))
                case .date:
                    let date = try fields.decode(Date.self, forKey: key)
                    return .date(Int64((date.timeIntervalSince1970 * 1000).rounded()))
                case .text: return .text(try fields.decode(String.self, forKey: key))
                case .blob: return .blob([UInt8](try fields.decode(Data.self, forKey: key)))
                }
            }
            records.append(Record(id: id, values: values))
        }
        self.init(shape: shape, records: records)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(shape, forKey: .shape)
        var list = container.nestedUnkeyedContainer(forKey: .records)
        for record in records {
            var fields = list.nestedContainer(keyedBy: FieldKey.self)
            try fields.encode(record.id, forKey: FieldKey(stringValue: "id"))
            for (field, value) in zip(shape.fields, record.values) {
                let key = FieldKey(stringValue: field.name)
                switch value {
                case .integer(let number): try fields.encode(number, forKey: key)
                case .double(let number): try fields.encode(number, forKey: key)
                case .bool(let flag): try fields.encode(flag, forKey: key)
                case .date(let milliseconds):
                    try fields.encode(Date(timeIntervalSince1970: Double(milliseconds) / 1000), forKey: key)
                case .text(let text): try fields.encode(text, forKey: key)
                case .blob(let bytes): try fields.encode(Data(bytes), forKey: key)
                }
            }
        }
    }
}
