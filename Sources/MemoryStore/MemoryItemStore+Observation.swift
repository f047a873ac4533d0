import PersistenceBench

extension MemoryItemStore: ObservableItemStore {
    /// An observer thread that waits for the store's commit sequence and re-queries under the items lock: one pass
    /// over the items for the page (the page orders belong to the writer's thread), the counts kept by the store.
    package func observe(_ query: ObservedQuery, deliver: @escaping @Sendable (ObservedResult) -> Void) throws
        -> any ItemObservation
    {
        SignalledObservation(
            signal: commits,
            requery: { [self] in
                itemsLock.reading {
                    var page = FirstItems(limit: query.limit)
                    for case let item? in slots where item.priority == query.priority {
                        if page.mightTake(isInStock: item.isInStock) { page.offer(item) }
                    }
                    return ObservedResult(
                        items: page.items, count: query.filters.reduce(0) { $0 + filterCounts[Int($1.code)] })
                }
            }, deliver: deliver)
    }
}
