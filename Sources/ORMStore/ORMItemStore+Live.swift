import PersistenceBench

/// Core Data's pattern for an import beside an interface. This store's context is the background context: it
/// imports, saves every commit and resets. The reader's context, on the reader's thread, fetches on a read
/// connection of its own (the coordinator's connection pool, WAL) through the row cache both share, which is from
/// then on behind the coordinator's lock; before each fetch it merges the background context's saves
/// (`automaticallyMergesChangesFromParent`).
extension ORMItemStore: ConcurrentReadStore {
    package func makeConcurrentReader() throws -> any QueryReader {
        ORMItemReader(context: try container.makeMergingContext())
    }
}

/// The interface's context on the reader's thread.
private final class ORMItemReader: QueryReader {
    private let context: ModelContext

    init(context: ModelContext) { self.context = context }

    func item(id: Int64) throws -> Item? {
        context.mergePendingChanges()
        return try ORMItemStore.item(id: id, in: context)
    }

    func page(_ query: ItemPageQuery) throws -> [Item] {
        context.mergePendingChanges()
        return try ORMItemStore.page(query, in: context)
    }

    func search(_ search: TitleSearch) throws -> TitleSearchAnswer {
        context.mergePendingChanges()
        return try ORMItemStore.search(search, in: context)
    }

    func close() throws { try context.closeMergingContext() }
}
