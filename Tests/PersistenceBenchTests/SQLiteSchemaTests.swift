import Foundation
import GRDBStore
import PersistenceBench
import SQLiteStore
import StoreCatalog
import Testing

/// `sqlite` and the `grdb` variants must differ only in the layer: same schema, indexes and pragmas; `grdb+fts`'s
/// full-text table and triggers, as GRDB writes them, are `sqlite+fts`'s.
@Suite struct SQLiteSchemaTests {
    @Test(arguments: GRDBItemStore.kinds.map(\.name))
    func grdbVariantsHaveTheSameSchemaAsSQLite(store name: String) throws {
        var schemas: [String] = []
        var pragmas: [String] = []
        for kind in [try storeKind(name.hasSuffix("+fts") ? "sqlite+fts" : "sqlite"), try storeKind(name)] {
            let directory = try TemporaryDirectory()
            let store = try openItemStore(kind, at: directory.url)
            try store.insert(ItemGenerator(seed: 1).items(1...3))
            if let store = store as? SQLiteItemStore { pragmas.append(try store.pragmaSettings()) }
            if let store = store as? GRDBItemStore { pragmas.append(try store.pragmaSettings()) }
            try store.close()
            let file = directory.url.appendingPathComponent("store.sqlite")
            schemas.append(
                try sqlite3(
                    file,
                    "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'grdb%' AND name NOT LIKE 'sqlite%' "
                        + "ORDER BY name"))
            #expect(
                try sqlite3(
                    file,
                    "SELECT typeof(isInStock), typeof(priority), typeof(createdAt) FROM item WHERE priority IS NOT NULL LIMIT 1"
                )
                    == "integer|integer|real\n")
        }
        #expect(schemas[0] == schemas[1])
        for name in [
            "item_on_priority_isInStock_title", "team_on_sportId", "floor_on_houseId_position",
            "room_on_floorId_position",
        ] {
            #expect(schemas[0].contains(name))
        }
        #expect(pragmas.count == 2 && pragmas[0] == pragmas[1])
        #expect(
            pragmas.first
                == "threading=multi-thread journal_mode=wal synchronous=2 cache_size=-2000 mmap_size=0 temp_store=0")
    }

    /// Every SQLite-based store's configuration line states the threading mode its connections run in.
    @Test func everySQLiteStoreStatesItsThreadingMode() throws {
        for kind in StoreCatalog.all where kind.engine().contains("SQLite") {
            #expect(kind.configuration.contains("threading=multi-thread"), "\(kind.name): \(kind.configuration)")
        }
    }

    /// `sqlite+tuned` is `sqlite` with a larger page cache, a memory map and in-memory temporary tables: the
    /// same durability, and the configuration its report line states.
    @Test func tunedSQLiteSetsWhatItsConfigurationSays() throws {
        let directory = try TemporaryDirectory()
        let kind = try storeKind("sqlite+tuned")
        let store = try #require(try kind.open(directory.url) as? SQLiteItemStore)
        defer { try? store.close() }
        let settings = try store.pragmaSettings()
        #expect(
            settings
                == "threading=multi-thread journal_mode=wal synchronous=2 cache_size=-1048576 mmap_size=1073741824 temp_store=2"
        )
        for setting in ["synchronous=FULL", "cache_size=-1048576", "mmap_size=1073741824", "temp_store=MEMORY"] {
            #expect(kind.configuration.contains(setting))
        }
    }
}
