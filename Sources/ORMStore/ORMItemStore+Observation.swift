import PersistenceBench

extension ORMItemStore: ObservableItemStore {
    /// The pattern SwiftData leaves to an `@Observable` model (`@Query` works only in views): a context of the
    /// model's own, here on an observer thread with a read connection of its own, told of every save of the
    /// store's context by its notification (the saved objects' identifiers), merges it and refetches the page and
    /// the count.
    ///
    /// The notification names objects, not what they match, so every save is refetched.
    package func observe(_ query: ObservedQuery, deliver: @escaping @Sendable (ObservedResult) -> Void) throws
        -> any ItemObservation
    {
        let observer = try container.makeMergingContext()
        return SignalledObservation(
            signal: observer.notifications,
            requery: {
                observer.mergePendingChanges()
                return ObservedResult(
                    items: try Self.page(query.page, in: observer),
                    count: try query.filters.reduce(0) { try $0 + Self.count(where: $1, in: observer) })
            }, deliver: deliver,
            finish: { try observer.closeMergingContext() })
    }
}
