import CLMDB
import Foundation
import PersistenceBench

/// Records of a shape in `lmdb`: id → the shape's codec (`RecordCodec`; large values go to LMDB's overflow pages),
/// and a page index whose keys sort as the page does (filter, sort value, id). One write transaction per batch
/// (`MDB_APPEND` when ids arrive in order, as for items); reads in the reused read transaction.
extension LMDBItemStore: RecordStore {
    package func records(of shape: RecordShape) throws -> any RecordTable {
        if let table = recordTable, table.codec.shape == shape { return table }
        let table = LMDBRecordTable(
            codec: RecordCodec(shape: shape), environment: environment,
            records: try environment.openDatabase("record"), pageIndex: try environment.openDatabase("record_page"))
        recordTable = table
        return table
    }
}

final class LMDBRecordTable: RecordTable {
    let codec: RecordCodec
    let environment: LMDBEnvironment
    /// id → the record's values.
    let records: LMDBDatabase
    /// `RecordCodec.pageKey` → nothing: the page's order.
    let pageIndex: LMDBDatabase

    init(codec: RecordCodec, environment: LMDBEnvironment, records: LMDBDatabase, pageIndex: LMDBDatabase) {
        self.codec = codec
        self.environment = environment
        self.records = records
        self.pageIndex = pageIndex
    }

    func insert(_ batch: [Record]) throws {
        try environment.write { transaction in
            let flags = try appendsInOrder(batch, in: transaction) ? MDB_APPEND : MDB_NOOVERWRITE
            for record in batch { try put(record, in: transaction, flags: flags) }
        }
    }

    func insertDurably(_ record: Record) throws {
        // One write transaction, and LMDB syncs every commit.
        try insert([record])
    }

    private func appendsInOrder(_ batch: [Record], in transaction: LMDBTransaction) throws -> Bool {
        guard let first = batch.first, zip(batch, batch.dropFirst()).allSatisfy({ $0.id < $1.id }) else {
            return false
        }
        let last = try transaction.withCursor(on: records) { cursor in
            try cursor.move(MDB_LAST).map { try ItemCodec.id(fromKey: $0.key) }
        }
        return last.map { $0 < first.id } ?? true
    }

    /// Stores `record`, encoded straight into the map, and its page-index entry.
    private func put(_ record: Record, in transaction: LMDBTransaction, flags: Int32) throws {
        let bytes = codec.encode(record)
        try ItemCodec.withKey(record.id) { key in
            let value = try transaction.reserve(in: records, key: key, count: bytes.count, flags: flags)
            bytes.withUnsafeBytes { value.copyMemory(from: $0) }
        }
        try codec.pageKey(of: record).withUnsafeBytes { key in
            try withUnsafeBytes(of: UInt8(0)) { try transaction.put(in: pageIndex, key: key, value: $0) }
        }
    }

    private func stored(id: Int64, in transaction: LMDBTransaction) throws -> Record? {
        try ItemCodec.withKey(id) { key in
            try transaction.value(in: records, forKey: key).map { try codec.decode(id: id, from: $0) }
        }
    }

    func record(id: Int64) throws -> Record? {
        try environment.read { try stored(id: id, in: $0) }
    }

    func forEachRecord(_ body: (Record) throws -> Void) throws {
        try environment.read { transaction in
            try transaction.withCursor(on: records) { cursor in
                var entry = try cursor.move(MDB_FIRST)
                while let current = entry {
                    try body(codec.decode(id: ItemCodec.id(fromKey: current.key), from: current.value))
                    entry = try cursor.move(MDB_NEXT)
                }
            }
        }
    }

    /// Each change reads the record, changes its value and writes it back (a key-value store has no column to
    /// set); a change of the page's filter or sort field moves its page-index entry.
    func update(_ changes: [RecordUpdate]) throws {
        try environment.write { transaction in
            for change in changes {
                guard var record = try stored(id: change.id, in: transaction) else {
                    throw LMDBError.corrupted("updating record \(change.id)", "it is not stored")
                }
                let moves = change.field == codec.shape.filterIndex || change.field == codec.shape.sortIndex
                if moves {
                    _ = try codec.pageKey(of: record).withUnsafeBytes {
                        try transaction.delete(in: pageIndex, key: $0)
                    }
                }
                change.apply(to: &record)
                let bytes = codec.encode(record)
                try ItemCodec.withKey(record.id) { key in
                    let value = try transaction.reserve(in: records, key: key, count: bytes.count)
                    bytes.withUnsafeBytes { value.copyMemory(from: $0) }
                }
                if moves {
                    try codec.pageKey(of: record).withUnsafeBytes { key in
                        try withUnsafeBytes(of: UInt8(0)) { try transaction.put(in: pageIndex, key: key, value: $0) }
                    }
                }
            }
        }
    }

    /// A cursor from the filter's first key: `offset` entries skipped, then `limit` records looked up by the id
    /// that ends each key.
    func page(_ query: RecordPageQuery) throws -> [Record] {
        let prefix = codec.pagePrefix(filter: query.filter)
        return try environment.read { transaction in
            try transaction.withCursor(on: pageIndex) { cursor in
                var page: [Record] = []
                var skipped = 0
                var entry = try prefix.withUnsafeBytes { try cursor.move(MDB_SET_RANGE, key: $0) }
                while let current = entry, page.count < query.limit, current.key.starts(with: prefix) {
                    if skipped < query.offset {
                        skipped += 1
                    } else {
                        let id = try ItemCodec.id(fromKey: UnsafeRawBufferPointer(rebasing: current.key.suffix(8)))
                        guard let record = try stored(id: id, in: transaction) else {
                            throw LMDBError.corrupted("reading a page", "record \(id) has an index entry only")
                        }
                        page.append(record)
                    }
                    entry = try cursor.move(MDB_NEXT)
                }
                return page
            }
        }
    }
}
