import Foundation
import GRDB
import GRDBSQLite
import PersistenceBench
import Synchronization

extension GRDBItemStore: MigrationStore {
    /// A migration registered after the store's own and run by the migrator, as a GRDB app ships a schema change:
    /// the query interface deletes every item whose id is not its title's smallest, then a unique index.
    package func migrateToUniqueTitles() throws -> Int {
        let deleted = DeletedRows()
        var migrator = Self.migrator(fullText: fullText)
        migrator.registerMigration("unique titles") { db in
            let firstOfEachTitle = ItemRecord.select(min(ItemRecord.Columns.id)).group(ItemRecord.Columns.title)
            deleted.count.store(
                try ItemRecord.filter(!firstOfEachTitle.contains(ItemRecord.Columns.id)).deleteAll(db),
                ordering: .relaxed)
            try db.create(index: "item_on_title", on: "item", columns: ["title"], unique: true)
        }
        try migrator.migrate(database)
        return deleted.count.load(ordering: .relaxed)
    }

    /// What the migration's closure (run by `migrate` before it returns) reports back.
    private final class DeletedRows: Sendable {
        let count = Atomic<Int>(0)
    }
}
