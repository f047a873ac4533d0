import Foundation
import PersistenceBench
import SQLiteSupport

/// `orm`'s migration to unique titles (`unique-title`).
extension ORMItemStore: MigrationStore {
    /// The custom stage of a SwiftData migration: every object fetched, the titles seen remembered, the later
    /// duplicates deleted, one save; then the next model version's unique constraint.
    package func migrateToUniqueTitles() throws -> Int {
        var seen = Set<String>()
        var deleted = 0
        for object in try context.fetch(FetchDescriptor<Model.Item>(sortBy: [FetchSortDescriptor(Model.Item.id)]))
        where !seen.insert(object.title).inserted {
            context.delete(object)
            deleted += 1
        }
        try context.save()
        try container.addUniqueConstraint(on: Model.Item.title)
        return deleted
    }
}
