import Foundation
import PersistenceBench
import SQLiteSupport

/// `sqlite`'s migration to unique titles (`unique-title`).
extension SQLiteItemStore: MigrationStore {
    /// One statement deletes the duplicates, a unique index enforces the rule, in one transaction.
    package func migrateToUniqueTitles() throws -> Int {
        try connection.transaction {
            try connection.execute("DELETE FROM item WHERE id NOT IN (SELECT min(id) FROM item GROUP BY title)")
            let deleted = connection.changes
            try connection.execute(#"CREATE UNIQUE INDEX "item_on_title" ON "item"("title")"#)
            return deleted
        }
    }
}
