/// `unique-title`: the migration that adds a uniqueness constraint to data that violates it.
///
/// About 5% of the fixture's titles repeat an earlier item's (`ItemGenerator.duplicateTitleShare`). Timed: the
/// whole migration, each store in its idiom: SQL's `DELETE … WHERE id NOT IN (SELECT min(id) … GROUP BY title)`
/// and a unique index for `sqlite` and `grdb`; for `orm` what a SwiftData custom migration stage must do (fetch
/// every object, remember the titles seen, delete the rest, save), then the unique constraint. The cell's peak
/// memory is the second half of the answer. Operations: the items examined (N).
package struct UniqueTitleWorkload: Workload {
    package init() {}
    package let name = "unique-title"
    package let summary = "migration: delete items whose title a lower id has (~5%), then make titles unique"
    package var fixture: Fixture? { .items }

    package var capability: StoreCapability { .migration }

    package func run(on store: any Store, context: WorkloadContext) throws -> WorkloadOutcome {
        let migrating = try requireCapability(store, (any MigrationStore).self, for: "workload \(name)")
        let deleted = try context.stopwatch.measure { try migrating.migrateToUniqueTitles() }
        var digest = Digest()
        digest.add(deleted)
        // The answer (how many were deleted) and, added after the timed phase, every item that remains.
        return WorkloadOutcome(operations: context.scale, digest: digest, alsoDigestsStore: true)
    }

    package func digestAfterRun(of store: any Store) throws -> Digest {
        var digest = Digest()
        try requireCapability(store, (any ItemStore).self, for: "workload \(name)").forEachItem { digest.add($0) }
        return digest
    }
}
