import PersistenceBench

/// Search as you type as a Core Data or SwiftData view asks it: a fetch with a `title CONTAINS[c] text`
/// predicate (the framework's string function on every row, `StringSearch`), sorted by title then id with a fetch
/// limit of 20, its objects materialised, and a count fetch with the same predicate.
extension ORMItemStore: SearchStore {
    package func search(_ search: TitleSearch) throws -> TitleSearchAnswer { try Self.search(search, in: context) }

    static func search(_ search: TitleSearch, in context: ModelContext) throws -> TitleSearchAnswer {
        let predicate = Model.Item.title.containsCaseInsensitive(search.text)
        let count = try context.fetchCount(FetchDescriptor<Model.Item>(predicate: predicate))
        let page = try context.fetch(
            FetchDescriptor<Model.Item>(
                predicate: predicate,
                sortBy: [FetchSortDescriptor(Model.Item.title), FetchSortDescriptor(Model.Item.id)],
                fetchLimit: search.limit))
        return TitleSearchAnswer(count: count, page: page.map(\.value))
    }
}
