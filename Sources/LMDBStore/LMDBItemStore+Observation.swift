import PersistenceBench

extension LMDBItemStore: ObservableItemStore {
    /// An observer thread that waits for the environment's commit sequence and re-queries in a read transaction of
    /// its own (`LMDBReader`): the title index for the page, its duplicate counts for the count.
    package func observe(_ query: ObservedQuery, deliver: @escaping @Sendable (ObservedResult) -> Void) throws
        -> any ItemObservation
    {
        let reader = LMDBReader(environment: environment)
        return SignalledObservation(
            signal: environment.commits,
            requery: { [self] in
                try reader.read { transaction in
                    ObservedResult(
                        items: try page(query.page, in: transaction),
                        count: try query.filters.reduce(0) { try $0 + count(where: $1, in: transaction) })
                }
            }, deliver: deliver, finish: { reader.close() })
    }
}
