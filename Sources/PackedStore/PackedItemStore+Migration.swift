import Foundation
import PersistenceBench

/// `packed`'s migration to unique titles (`unique-title`).
extension PackedItemStore: MigrationStore {
    /// An array store's way: one pass over the live rows in id order with a set of the titles seen, the later
    /// duplicates deleted and the flag `titlesAreUnique` set in the same commit.
    ///
    /// From then on a write checks its titles against an in-memory set of the live titles (built on the first write),
    /// as there is no index.
    package func migrateToUniqueTitles() throws -> Int {
        var seen = Set<String>()
        var duplicates: [Int64] = []
        try forEachItem { item in
            if !seen.insert(item.title).inserted { duplicates.append(item.id) }
        }
        var next = header
        next.titlesAreUnique = true
        try delete(ids: duplicates, committing: &next)
        liveTitles = seen
        return duplicates.count
    }

    /// Refuses writes that would give item ids their titles if another live item, or another write in the same
    /// batch, has that title; the titles of `replacing` (items being updated) do not count.
    func checkUniqueTitles(_ writes: [(id: Int64, title: String)], replacing: Set<Int64> = []) throws {
        let live: Set<String>
        if let known = liveTitles {
            live = known
        } else {
            var titles = Set<String>()
            try forEachItem { titles.insert($0.title) }
            (live, liveTitles) = (titles, titles)
        }
        var replaced = Set<String>()
        for id in replacing { if let index = liveRow(id: id) { replaced.insert(try view.string(row(index).title)) } }
        var batch = Set<String>()
        for (id, title) in writes
        where !batch.insert(title).inserted || (live.contains(title) && !replaced.contains(title)) {
            throw PackedError(
                "storing item \(id) in \(rows.path): its title \"\(title)\" is another item's; titles are unique")
        }
    }
}
