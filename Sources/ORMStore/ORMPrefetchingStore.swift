import Foundation
import PersistenceBench
import SQLiteSupport

/// `orm+prefetch`: the same ORM, its association and house reads naming the relationships to prefetch.
///
/// It answers only those workloads: for items it would be `orm` again.
package final class ORMPrefetchingStore: ObjectGraphStore {
    package static let kind = ORMItemStore.kind(
        "orm+prefetch",
        summary: "the same ORM; relationship reads prefetch (relationshipKeyPathsForPrefetching) instead of one "
            + "fault per object",
        type: ORMPrefetchingStore.self, open: { try ORMPrefetchingStore(directory: $0) })

    private let container: ModelContainer
    let context: ModelContext
    var savesEveryBatch: Bool { false }
    var prefetchesRelationships: Bool { true }
    var profileStacks: ProfileStacks?

    package init(directory: URL) throws {
        container = try ModelContainer(
            model: ORMItemStore.makeModel(), url: directory.appendingPathComponent("store.sqlite"))
        context = ModelContext(container)
    }

    package func close() throws {
        resetContext()
        try container.close()
    }

    package func finishInserting() throws {
        try context.save()
    }

    package func settle() throws {
        try container.checkpoint()
    }
}
