import CLMDB
import Foundation
import PersistenceBench

/// `lmdb`: LMDB through the system `liblmdb`: items in a compact binary layout (`ItemCodec`) under their ids,
/// and a title index as a second, `MDB_DUPSORT` database kept in the same write transaction.
///
/// Reads decode every field into the same `Item` values the other stores return: the decoding is part of what a
/// user of a key-value store pays.
package final class LMDBItemStore: Store {
    static let configuration =
        "MDB_NOTLS; a read-only map of the whole file, 256 MiB at first, doubled when full; no cache of its own (the "
        + "kernel's page cache)"

    package static let kinds = [
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
            configuration: configuration.replacingOccurrences(
                of: "MDB_NOTLS; a read-only map",
                with: "MDB_NOTLS | "
                    + "MDB_WRITEMAP; a writable map")
                + "; the file is extended to the map's size (sparse), so its bytes on disk show the map",
            engine: { LMDBEnvironment.version }, inclusion: .variant, type: LMDBItemStore.self,
            open: { try LMDBItemStore(directory: $0, flags: MDB_WRITEMAP) }),
        StoreKind(
            name: "lmdb+nordahead",
            summary: "lmdb with MDB_NORDAHEAD, as LMDB advises for a database larger than memory: the map is advised "
                + "MADV_RANDOM, so a fault of a page not in memory reads that page, not the read-ahead window around it",
            durability: "every commit synced (LMDB's default: mdb_txn_commit flushes the data, then the meta page)",
            configuration: configuration.replacingOccurrences(of: "MDB_NOTLS", with: "MDB_NOTLS | MDB_NORDAHEAD"),
            engine: { LMDBEnvironment.version }, inclusion: .whenNamed, type: LMDBItemStore.self,
            open: { try LMDBItemStore(directory: $0, flags: MDB_NORDAHEAD) }),
    ]

    /// The initial map: enough for about a million items.
    ///
    /// Larger stores grow it as they fill it.
    package static let defaultMapSize = 256 << 20

    /// A DUPSORT key's duplicate count is kept in its sub-database's header: `count(where:)` and
    /// `teamCountsBySport()` read it (`mdb_cursor_count`) after one seek instead of counting entries.
    package static var maintainedCounts: Set<MaintainedCount> { [.itemsPerFilter, .teamsPerSport] }

    /// The environment, for tests that look at its map.
    package let environment: LMDBEnvironment
    /// id → `ItemCodec` value.
    let items: LMDBDatabase
    /// `[priority, isInStock]` → title, 0, id: answers `count(where:)` and `page(_:)` without a table scan.
    let titleIndex: LMDBDatabase
    /// title → id, filled by `migrateToUniqueTitles` and kept from then on: the unique index.
    let titles: LMDBDatabase
    let meta: LMDBDatabase
    /// Whether `titles` is in force: recorded in `meta` by the migration.
    var titlesAreUnique: Bool
    /// Sports, teams and houses (`LMDBGraphDatabases.swift`).
    let graph: LMDBGraphDatabases
    /// Samples and stacks (`LMDBItemStore+Profile.swift`).
    let profile: LMDBProfileDatabases
    /// The profile's distinct stacks by id, loaded by the first profile write.
    var profileStacks: StackInterner?
    /// The table of the records of a shape, once asked (`LMDBItemStore+Records.swift`): two more databases.
    var recordTable: LMDBRecordTable?

    /// Opens the store in `directory` (an LMDB environment: `data.mdb` and `lock.mdb`), creating it if empty.
    package init(directory: URL, mapSize: Int = defaultMapSize, flags: Int32 = 0) throws {
        environment = try LMDBEnvironment(
            directory: directory, maxDatabases: 6 + LMDBGraphDatabases.count + LMDBProfileDatabases.count,
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

    package func close() throws {
        environment.close()
    }
}
