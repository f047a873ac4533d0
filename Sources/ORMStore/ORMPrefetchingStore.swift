import Foundation
import PersistenceBench
import SQLiteSupport

/// `orm+prefetch`: the same ORM, its association and house reads naming the relationships to prefetch. It
/// answers only those workloads: for items it would be `orm` again.
public final class ORMPrefetchingStore: ObjectGraphStore {
    public static let kind = ORMItemStore.kind(
        "orm+prefetch",
        summary: "the same ORM; relationship reads prefetch (relationshipKeyPathsForPrefetching) instead of one "
            + "fault per object",
        type: ORMPrefetchingStore.self, open: { try ORMPrefetchingStore(directory: $0) })

    private let container: ModelContainer
    let context: ModelContext
    var savesEveryBatch: Bool { false }
    var prefetchesRelationships: Bool { true }
    var profileStacks: ProfileStacks?

    public init(directory: URL) throws {
        container = try ModelContainer(
            model: ORMItemStore.makeModel(), url: directory.appendingPathComponent("store.sqlite"))
        context = ModelContext(container)
    }

    public func close() throws {
        resetContext()
        try container.close()
    }

    public func finishInserting() throws {
        try context.save()
    }

    public func settle() throws {
        try container.checkpoint()
    }
}
