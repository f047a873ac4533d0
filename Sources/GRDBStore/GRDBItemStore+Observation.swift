import Dispatch
import GRDB
import PersistenceBench
import Synchronization

extension GRDBItemStore: ObservableItemStore {
    /// GRDB's `ValueObservation`, what SQLiteData's `@FetchAll` runs on: it tracks the tables and columns the fetch
    /// reads (here every item column), is told of each commit that touches them, re-fetches on one of the pool's
    /// readers and delivers on a queue of the observer's. The fetch is the flavor's own `page` and `count(where:)`.
    public func observe(_ query: ObservedQuery, deliver: @escaping @Sendable (ObservedResult) -> Void) throws
        -> any ItemObservation
    {
        let counts = ObservationCounts()
        let flavor = self.flavor
        let observation = ValueObservation.tracking { db in
            ObservedResult(
                items: try Self.page(query.page, flavor: flavor, in: db),
                count: try query.filters.reduce(0) { try $0 + Self.count(where: $1, flavor: flavor, in: db) })
        }
        .handleEvents(
            willFetch: { counts.fetches.add(1, ordering: .relaxed) },
            databaseDidChange: { counts.changes.add(1, ordering: .relaxed) })
        let cancellable = observation.start(
            in: pool, scheduling: .async(onQueue: DispatchQueue(label: "observer")),
            onError: { error in counts.error.withLock { $0 = "\(error)" } }, onChange: deliver)
        return GRDBObservation(cancellable: cancellable, counts: counts)
    }
}

/// What the observation's event handlers count, on GRDB's threads.
private final class ObservationCounts: Sendable {
    let fetches = Atomic<Int>(0)
    let changes = Atomic<Int>(0)
    let error = Mutex<String?>(nil)
}

private final class GRDBObservation: ItemObservation {
    private let cancellable: AnyDatabaseCancellable
    private let counts: ObservationCounts

    init(cancellable: AnyDatabaseCancellable, counts: ObservationCounts) {
        self.cancellable = cancellable
        self.counts = counts
    }

    var notifications: Int { counts.changes.load(ordering: .relaxed) }
    /// The fetches after the first.
    var requeries: Int { max(0, counts.fetches.load(ordering: .relaxed) - 1) }

    func cancel() throws {
        cancellable.cancel()
        if let error = counts.error.withLock({ $0 }) { throw BenchError("GRDB's observation failed: \(error)") }
    }
}
