import Foundation
import PersistenceBench
import SQLiteSupport

/// The association and house workloads done the object-graph way, shared by `orm` (and `orm+batched`) and
/// `orm+prefetch`.
///
/// Reads go through the relationships, as a SwiftData user's code does: `sport.teams.count` fires one to-many
/// fault per sport (N+1 queries), `house.floors` and `floor.rooms` one per house and per floor, in the order the
/// `Z_FOK_` columns keep. With `prefetchesRelationships` the fetches name the relationships to prefetch
/// (`relationshipKeyPathsForPrefetching`), one query per relationship instead. Deletes fetch the houses, delete
/// them and save: the cascade rule deletes floors and rooms at save, firing their faults.
protocol ObjectGraphStore: AssociationStore, HouseStore, ProfileStore {
    var context: ModelContext { get }
    /// The profile's stacks, loaded by the first profile write.
    var profileStacks: ProfileStacks? { get set }
    /// Saves and resets the context after every batch of a bulk load (`orm+batched`), else once at the end.
    var savesEveryBatch: Bool { get }
    var prefetchesRelationships: Bool { get }
}

extension ObjectGraphStore {
    /// Saves and resets the context after a batch of a bulk load when the store saves every batch.
    func endBatch() throws {
        guard savesEveryBatch else { return }
        try context.save()
        resetContext()
    }

    /// Resets the context and lets go of the stack objects it held.
    func resetContext() {
        context.reset()
        profileStacks?.objects = [:]
    }
}
