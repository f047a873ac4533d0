import PersistenceBench

/// `unique-title` on the heap stores: one pass with a set of the titles seen; from then on every write checks the
/// set. One commit: the deletions and the constraint together.
extension MemoryItemStore: MigrationStore {
    package func migrateToUniqueTitles() throws -> Int {
        var seen = Set<String>()
        var duplicates: [Int64] = []
        for case let item? in slots where !seen.insert(item.title).inserted { duplicates.append(item.id) }
        remove(ids: duplicates)
        uniqueTitles = seen
        unsaved = true
        try commit()
        return duplicates.count
    }

    /// Refuses writes that would repeat a live title (other than those of the items `replacing` names) or a title
    /// of the same batch, once titles are unique.
    func checkUniqueTitles(_ writes: [(id: Int64, title: String)], replacing: Set<Int64> = []) throws {
        guard let uniqueTitles else { return }
        let replaced = Set(replacing.compactMap { slot($0)?.title })
        var batch = Set<String>()
        for (id, title) in writes
        where !batch.insert(title).inserted || (uniqueTitles.contains(title) && !replaced.contains(title)) {
            throw BenchError("\(name): item \(id)'s title \"\(title)\" is another item's; titles are unique")
        }
    }
}
