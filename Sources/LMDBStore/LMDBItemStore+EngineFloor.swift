import CLMDB
import PersistenceBench

/// `lmdb`'s engine floor (`EngineFloorStore`): the store's records, keys and title-index entries encoded before the
/// timer, written with `mdb_put` (`MDB_APPEND` for the ascending ids, the index entries in index order) in one write
/// transaction per batch through the store's environment; a lookup is `mdb_get` in the store's reused read
/// transaction, its value's bytes touched, not decoded.
extension LMDBItemStore: EngineFloorStore {
    package static var engineFloorCalls: String {
        "mdb_put of pre-encoded records and index entries, mdb_get in a renewed read transaction"
    }

    /// A batch as LMDB is handed it: each record's key and value, and the index entries in index order.
    struct EngineBatch {
        var records: [(key: [UInt8], value: [UInt8])]
        var indexEntries: [(key: [UInt8], value: [UInt8])]
    }

    package func engineRecords(_ batch: [Item]) throws -> EngineRecords {
        let records = batch.map { item in
            let key = ItemCodec.withKey(item.id) { Array($0) }
            var value = [UInt8](repeating: 0, count: ItemCodec.encodedSize(of: item))
            value.withUnsafeMutableBytes { ItemCodec.encode(item, into: $0) }
            return (key, value)
        }
        let indexEntries = try ItemCodec.titleIndexOrder(of: batch).map { position in
            let item = batch[position]
            return try ItemCodec.withTitleIndexKey(priority: item.priority, isInStock: item.isInStock) { key in
                try ItemCodec.withTitleIndexValue(title: item.title, id: item.id) { (Array(key), Array($0)) }
            }
        }
        return EngineRecords(count: batch.count, payload: EngineBatch(records: records, indexEntries: indexEntries))
    }

    package func engineInsert(_ records: EngineRecords) throws {
        guard let batch = records.payload as? EngineBatch else { throw BenchError("engine records of another store") }
        try environment.write { transaction in
            for (key, value) in batch.records {
                try Self.put(key, value, into: items, in: transaction, flags: MDB_APPEND)
            }
            for (key, value) in batch.indexEntries {
                try Self.put(key, value, into: titleIndex, in: transaction, flags: MDB_NODUPDATA)
            }
        }
    }

    private static func put(
        _ key: [UInt8], _ value: [UInt8], into database: LMDBDatabase, in transaction: LMDBTransaction, flags: Int32
    ) throws {
        var key = key
        var value = value
        let code = key.withUnsafeMutableBytes { keyBytes in
            value.withUnsafeMutableBytes { valueBytes in
                var keyValue = MDB_val(mv_size: keyBytes.count, mv_data: keyBytes.baseAddress)
                var dataValue = MDB_val(mv_size: valueBytes.count, mv_data: valueBytes.baseAddress)
                return mdb_put(transaction.pointer, database.handle, &keyValue, &dataValue, UInt32(flags))
            }
        }
        try LMDBError.check(code, "mdb_put into \(database.name)")
    }

    package func engineLookUp(_ id: Int64) throws -> Int64? {
        try environment.read { transaction in
            try ItemCodec.withKey(id) { key in
                var keyValue = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
                var value = MDB_val()
                switch mdb_get(transaction.pointer, items.handle, &keyValue, &value) {
                case MDB_SUCCESS:
                    // The value's flags byte checked as `ItemCodec.decode` checks it: its page read, no `Item` built.
                    let bytes = UnsafeRawBufferPointer(start: value.mv_data, count: value.mv_size)
                    guard let flags = bytes.first, ItemFilter(code: flags) != nil else {
                        throw LMDBError.corrupted("reading item \(id)", "a value without its flags byte")
                    }
                    return id
                case MDB_NOTFOUND: return nil
                case let code: throw LMDBError(code, operation: "mdb_get")
                }
            }
        }
    }
}
