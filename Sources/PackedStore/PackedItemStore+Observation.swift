import PersistenceBench

extension PackedItemStore: ObservableItemStore {
    /// An observer thread that waits for the store's commit sequence and re-queries the published snapshot
    /// (`+Live`): one pass over its rows for the page, as an array store finds a first page without a sorted index
    /// (the order index belongs to the writer's thread), and the counts its header keeps.
    package func observe(_ query: ObservedQuery, deliver: @escaping @Sendable (ObservedResult) -> Void) throws
        -> any ItemObservation
    {
        SignalledObservation(
            signal: commits,
            requery: { [self] in
                try readersLock.reading {
                    guard let snapshot = published else { throw PackedError("observing a closed packed store") }
                    let view = snapshot.view
                    let priorityCode = ItemFilter.priorityCode(query.priority)
                    var page = FirstItems(limit: query.limit)
                    for index in 0..<snapshot.state.rowCount where !view.isDeleted(index) {
                        let filter = view.row(index).filter
                        guard ItemFilter.priorityCode(filter.priority) == priorityCode,
                            page.mightTake(isInStock: filter.isInStock)
                        else { continue }
                        page.offer(try view.item(at: index))
                    }
                    return ObservedResult(
                        items: page.items,
                        count: query.filters.reduce(0) { $0 + snapshot.state.counts[Int($1.code)] })
                }
            }, deliver: deliver)
    }
}
