import CLMDB
import Foundation
import PersistenceBench

/// `lmdb`: LMDB through the system `liblmdb`: items in a compact binary layout (`ItemCodec`) under their ids,
/// and a title index as a second, `MDB_DUPSORT` database kept in the same write transaction.
///
/// Reads decode every field into the same `Item` values the other stores return: the decoding is part of what a
/// user of a key-value store pays.
public final class LMDBItemStore: MigrationStore {
    static let configuration =
        "MDB_NOTLS; a read-only map of the whole file, 256 MiB at first, doubled when full; no cache of its own (the "
        + "kernel's page cache)"

    public static let kinds = [
        StoreKind(
            name: "lmdb",
            summary: "LMDB via liblmdb: compact binary records under big-endian ids, a DUPSORT title index, cursors",
            durability: "every commit synced (LMDB's default: mdb_txn_commit flushes the data, then the meta page)",
            configuration: configuration, engine: { LMDBEnvironment.version }, type: LMDBItemStore.self,
            open: { try LMDBItemStore(directory: $0) }),
        StoreKind(
            name: "lmdb+nometasync",
            summary: "lmdb with MDB_NOMETASYNC: a commit flushes its data pages but writes the meta page without a "
                + "flush; the next commit's flush carries it",
            durability: "data synced, meta page not (MDB_NOMETASYNC): a power cut may lose the last commit, never "
                + "corrupts",
            promise: .committedPrefix,
            configuration: configuration.replacingOccurrences(
                of: "MDB_NOTLS", with: "MDB_NOTLS | MDB_NOMETASYNC"),
            engine: { LMDBEnvironment.version }, inclusion: .variant, type: LMDBItemStore.self,
            open: { try LMDBItemStore(directory: $0, flags: MDB_NOMETASYNC) }),
        StoreKind(
            name: "lmdb+writemap",
            summary: "lmdb with MDB_WRITEMAP: a write transaction changes pages in a writable map of the file instead "
                + "of copies written with pwrite; a commit msyncs the map, then the meta page",
            durability: "every commit synced (msync(MS_SYNC) of the map, then the meta page), as lmdb",
            invisibleToRecorder: "it writes through a shared writable map, which the write recorder cannot see",
            configuration: configuration.replacingOccurrences(
                of: "MDB_NOTLS; a read-only map",
                with: "MDB_NOTLS | "
                    + "MDB_WRITEMAP; a writable map")
                + "; the file is extended to the map's size (sparse), so its bytes on disk show the map",
            engine: { LMDBEnvironment.version }, inclusion: .variant, type: LMDBItemStore.self,
            open: { try LMDBItemStore(directory: $0, flags: MDB_WRITEMAP) }),
    ]

    /// The initial map: enough for about a million items. Larger stores grow it as they fill it.
    public static let defaultMapSize = 256 << 20

    /// A DUPSORT key's duplicate count is kept in its sub-database's header: `count(where:)` and
    /// `teamCountsBySport()` read it (`mdb_cursor_count`) after one seek instead of counting entries.
    public static var maintainedCounts: Set<MaintainedCount> { [.itemsPerFilter, .teamsPerSport] }

    /// The environment, for tests that look at its map.
    public let environment: LMDBEnvironment
    /// id → `ItemCodec` value.
    let items: LMDBDatabase
    /// `[priority, isInStock]` → title, 0, id: answers `count(where:)` and `page(_:)` without a table scan.
    let titleIndex: LMDBDatabase
    /// title → id, filled by `migrateToUniqueTitles` and kept from then on: the unique index.
    private let titles: LMDBDatabase
    private let meta: LMDBDatabase
    /// Whether `titles` is in force: recorded in `meta` by the migration.
    private var titlesAreUnique: Bool
    /// Sports, teams and houses (`LMDBGraphStore.swift`).
    let graph: LMDBGraphDatabases
    /// Samples and stacks (`LMDBProfileStore.swift`).
    let profile: LMDBProfileDatabases
    /// The profile's distinct stacks by id, loaded by the first profile write.
    var profileStacks: StackInterner?

    /// Opens the store in `directory` (an LMDB environment: `data.mdb` and `lock.mdb`), creating it if empty.
    public init(directory: URL, mapSize: Int = defaultMapSize, flags: Int32 = 0) throws {
        environment = try LMDBEnvironment(
            directory: directory, maxDatabases: 4 + LMDBGraphDatabases.count + LMDBProfileDatabases.count,
            mapSize: mapSize, flags: flags)
        meta = try environment.openDatabase("meta")
        try Self.checkFormat(in: meta, of: environment)
        items = try environment.openDatabase("item")
        titleIndex = try environment.openDatabase("item_on_priority_isInStock_title", flags: MDB_DUPSORT)
        titles = try environment.openDatabase("item_on_title")
        graph = try LMDBGraphDatabases(in: environment)
        profile = try LMDBProfileDatabases(in: environment)
        titlesAreUnique = try environment.read { [meta] transaction in
            try Self.uniqueTitlesKey.withUnsafeBytes { try transaction.value(in: meta, forKey: $0) != nil }
        }
    }

    /// Records the codec's format version in a new store; refuses a store written in another.
    private static func checkFormat(in meta: LMDBDatabase, of environment: LMDBEnvironment) throws {
        let key = Array("itemFormat".utf8)
        try environment.write { transaction in
            try key.withUnsafeBytes { key in
                if let stored = try transaction.value(in: meta, forKey: key) {
                    guard stored.count == 1, stored[0] == ItemCodec.formatVersion else {
                        throw LMDBError(
                            operation: "opening \(environment.path)", code: MDB_INCOMPATIBLE,
                            message: "items are stored in format \(Array(stored)); this build reads "
                                + "[\(ItemCodec.formatVersion)]")
                    }
                } else {
                    try withUnsafeBytes(of: ItemCodec.formatVersion) {
                        try transaction.put(in: meta, key: key, value: $0)
                    }
                }
            }
        }
    }

    public func close() throws {
        environment.close()
    }

    public func insert(_ batch: [Item]) throws {
        try environment.write { transaction in
            let flags = try appendsInOrder(batch, in: transaction) ? MDB_APPEND : MDB_NOOVERWRITE
            for item in batch { try putRecord(item, in: transaction, flags: flags) }
            // Index entries in index order: consecutive puts land on the same or neighbouring pages, which are then
            // hot in cache and already copied for this transaction. At 1M items this cut the kernel's count of
            // bytes written by 43% and the insert time by 10%.
            for item in batch.sorted(by: ItemCodec.titleIndexOrder) { try addIndexEntry(of: item, in: transaction) }
            if titlesAreUnique {
                for item in batch { try claim(item.title, for: item.id, in: transaction) }
            }
        }
    }

    public func insertDurably(_ item: Item) throws {
        // One write transaction, and LMDB syncs every commit.
        try insert([item])
    }

    /// Whether `batch` is in ascending id order and after the last stored id, so that `MDB_APPEND` can skip the
    /// key search and fill pages completely. Any other batch is inserted with ordinary puts.
    private func appendsInOrder(_ batch: [Item], in transaction: LMDBTransaction) throws -> Bool {
        guard let first = batch.first else { return false }
        var previous = first.id
        for item in batch.dropFirst() {
            guard item.id > previous else { return false }
            previous = item.id
        }
        let last = try transaction.withCursor(on: items) { cursor in
            try cursor.move(MDB_LAST).map { try ItemCodec.id(fromKey: $0.key) }
        }
        return last.map { $0 < first.id } ?? true
    }

    /// Stores `item`, encoded straight into the map.
    private func putRecord(_ item: Item, in transaction: LMDBTransaction, flags: Int32) throws {
        do {
            try ItemCodec.withKey(item.id) { key in
                let value = try transaction.reserve(
                    in: items, key: key, count: ItemCodec.encodedSize(of: item), flags: flags)
                ItemCodec.encode(item, into: value)
            }
        } catch let error as LMDBError where error.code == MDB_KEYEXIST {
            throw LMDBError(
                operation: "inserting item \(item.id)", code: error.code, message: "an item with this id is stored")
        }
    }

    private func addIndexEntry(of item: Item, in transaction: LMDBTransaction) throws {
        try ItemCodec.withTitleIndexKey(priority: item.priority, isInStock: item.isInStock) { key in
            try ItemCodec.withTitleIndexValue(title: item.title, id: item.id) { value in
                try transaction.put(in: titleIndex, key: key, value: value, flags: MDB_NODUPDATA)
            }
        }
    }

    private func removeIndexEntry(of item: Item, in transaction: LMDBTransaction) throws {
        let removed = try ItemCodec.withTitleIndexKey(priority: item.priority, isInStock: item.isInStock) { key in
            try ItemCodec.withTitleIndexValue(title: item.title, id: item.id) { value in
                try transaction.delete(in: titleIndex, key: key, value: value)
            }
        }
        guard removed else {
            throw LMDBError.corrupted("removing item \(item.id) from \(titleIndex.name)", "it has no index entry")
        }
    }

    func storedItem(id: Int64, in transaction: LMDBTransaction) throws -> Item? {
        try ItemCodec.withKey(id) { key in
            try transaction.value(in: items, forKey: key).map { try ItemCodec.decode(id: id, from: $0) }
        }
    }

    public func item(id: Int64) throws -> Item? {
        try environment.read { try storedItem(id: id, in: $0) }
    }

    public func forEachItem(_ body: (Item) throws -> Void) throws {
        try environment.read { transaction in
            try transaction.withCursor(on: items) { cursor in
                var entry = try cursor.move(MDB_FIRST)
                while let current = entry {
                    try body(ItemCodec.decode(id: ItemCodec.id(fromKey: current.key), from: current.value))
                    entry = try cursor.move(MDB_NEXT)
                }
            }
        }
    }

    public func items(startingAt id: Int64, limit: Int) throws -> [Item] {
        try environment.read { transaction in
            try transaction.withCursor(on: items) { cursor in
                var found: [Item] = []
                found.reserveCapacity(limit)
                // Keys sort as ids do (big-endian, sign bit flipped): MDB_SET_RANGE lands on the first id ≥ `id`.
                var entry = try ItemCodec.withKey(id) { try cursor.move(MDB_SET_RANGE, key: $0) }
                while let current = entry, found.count < limit {
                    found.append(try ItemCodec.decode(id: ItemCodec.id(fromKey: current.key), from: current.value))
                    entry = try cursor.move(MDB_NEXT)
                }
                return found
            }
        }
    }

    public func count(where filter: ItemFilter) throws -> Int {
        try environment.read { try count(where: filter, in: $0) }
    }

    /// `count(where:)` in `transaction`.
    func count(where filter: ItemFilter, in transaction: LMDBTransaction) throws -> Int {
        try transaction.withCursor(on: titleIndex) { cursor in
            try ItemCodec.withTitleIndexKey(priority: filter.priority, isInStock: filter.isInStock) { key in
                // A key's duplicate count is kept in its sub-database: O(1) after the O(log n) seek.
                try cursor.move(MDB_SET, key: key) == nil ? 0 : cursor.duplicateCount()
            }
        }
    }

    /// A cursor walk over every item, reading only the price from each value's fixed-width head.
    public func count(pricedIn range: PriceRange) throws -> Int {
        try environment.read { transaction in
            try transaction.withCursor(on: items) { cursor in
                var count = 0
                var entry = try cursor.move(MDB_FIRST)
                while let current = entry {
                    if range.contains(try ItemCodec.price(from: current.value)) { count += 1 }
                    entry = try cursor.move(MDB_NEXT)
                }
                return count
            }
        }
    }

    public func page(_ query: ItemPageQuery) throws -> [Item] {
        try environment.read { try page(query, in: $0) }
    }

    /// `page(_:)` in `transaction`.
    func page(_ query: ItemPageQuery, in transaction: LMDBTransaction) throws -> [Item] {
        try transaction.withCursor(on: titleIndex) { cursor in
            var items: [Item] = []
            items.reserveCapacity(query.limit)
            var skip = query.offset
            // Out of stock sorts first: the [priority, 0] entries, then [priority, 1], each in title order.
            for isInStock in [false, true] where items.count < query.limit {
                try ItemCodec.withTitleIndexKey(priority: query.priority, isInStock: isInStock) { key in
                    guard var entry = try cursor.move(MDB_SET, key: key) else { return }
                    let count = try cursor.duplicateCount()
                    guard skip < count else {
                        skip -= count
                        return
                    }
                    // LMDB keeps no ranks, so an offset is walked; pages here are at most 50 deep.
                    for _ in 0..<skip { entry = try cursor.move(MDB_NEXT_DUP) ?? entry }
                    skip = 0
                    while items.count < query.limit {
                        let id = try ItemCodec.id(fromTitleIndexValue: entry.value)
                        guard let item = try storedItem(id: id, in: transaction) else {
                            throw LMDBError.corrupted("reading \(titleIndex.name)", "it lists missing item \(id)")
                        }
                        items.append(item)
                        guard let next = try cursor.move(MDB_NEXT_DUP) else { break }
                        entry = next
                    }
                }
            }
            return items
        }
    }

    public func update(_ updates: [ItemUpdate]) throws {
        try environment.write { transaction in
            for update in updates {
                // As SQL's UPDATE … WHERE id = ?, an id that is not stored changes nothing.
                guard let old = try storedItem(id: update.id, in: transaction) else { continue }
                var new = old
                update.apply(to: &new)
                if new.title != old.title || new.isInStock != old.isInStock {
                    try removeIndexEntry(of: old, in: transaction)
                    try addIndexEntry(of: new, in: transaction)
                }
                if titlesAreUnique && new.title != old.title {
                    try release(old.title, in: transaction)
                    try claim(new.title, for: new.id, in: transaction)
                }
                try ItemCodec.withKey(new.id) { key in
                    ItemCodec.encode(
                        new, into: try transaction.reserve(in: items, key: key, count: ItemCodec.encodedSize(of: new)))
                }
            }
        }
    }

    public func delete(ids: [Int64]) throws {
        try environment.write { transaction in
            for id in ids {
                guard let item = try storedItem(id: id, in: transaction) else { continue }
                try removeIndexEntry(of: item, in: transaction)
                if titlesAreUnique { try release(item.title, in: transaction) }
                _ = try ItemCodec.withKey(id) { try transaction.delete(in: items, key: $0) }
            }
        }
    }

    // MARK: Unique titles

    static let uniqueTitlesKey = Array("uniqueTitles".utf8)

    /// LMDB's way: one write transaction walks the items in id order and puts each title into a new `title → id`
    /// database with `MDB_NOOVERWRITE`; an item whose title is already there is a later duplicate and is deleted
    /// (with its entry in the title index). The new database is then the unique index that inserts and updates
    /// keep, recorded in `meta` so that a reopened store keeps it.
    public func migrateToUniqueTitles() throws -> Int {
        let deleted = try environment.write { transaction in
            var duplicates: [Item] = []
            try transaction.withCursor(on: items) { cursor in
                var entry = try cursor.move(MDB_FIRST)
                while let current = entry {
                    let item = try ItemCodec.decode(id: ItemCodec.id(fromKey: current.key), from: current.value)
                    do { try claim(item.title, for: item.id, in: transaction) } catch let error as LMDBError
                        where error.code == MDB_KEYEXIST
                    {
                        duplicates.append(item)
                    }
                    entry = try cursor.move(MDB_NEXT)
                }
            }
            for item in duplicates {
                try removeIndexEntry(of: item, in: transaction)
                _ = try ItemCodec.withKey(item.id) { try transaction.delete(in: items, key: $0) }
            }
            try Self.uniqueTitlesKey.withUnsafeBytes { key in
                try withUnsafeBytes(of: UInt8(1)) { try transaction.put(in: meta, key: key, value: $0) }
            }
            return duplicates.count
        }
        titlesAreUnique = true
        return deleted
    }

    /// Enters `title` for item `id` in the unique index; `MDB_KEYEXIST` if another item has it.
    private func claim(_ title: String, for id: Int64, in transaction: LMDBTransaction) throws {
        var title = title
        try title.withUTF8 { utf8 in
            try ItemCodec.withKey(id) { value in
                do {
                    try transaction.put(
                        in: titles, key: UnsafeRawBufferPointer(utf8), value: value, flags: MDB_NOOVERWRITE)
                } catch let error as LMDBError where error.code == MDB_KEYEXIST {
                    throw LMDBError(
                        operation: "storing item \(id)", code: MDB_KEYEXIST,
                        message:
                            "its title \"\(String(decoding: utf8, as: UTF8.self))\" is another item's; titles are unique"
                    )
                }
            }
        }
    }

    private func release(_ title: String, in transaction: LMDBTransaction) throws {
        var title = title
        try title.withUTF8 { _ = try transaction.delete(in: titles, key: UnsafeRawBufferPointer($0)) }
    }
}
