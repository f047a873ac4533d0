import Dispatch
import GRDB
import PersistenceBench
import Synchronization

extension GRDBItemStore: ObservableItemStore {
    /// GRDB's `ValueObservation`, what SQLiteData's `@FetchAll` runs on: it records the tables and columns the
    /// fetch reads (here every item column), is told of each commit that touches them, and delivers on a queue of
    /// the observer's.
    ///
    /// `grdb` and `grdb+codable` use `ValueObservation.tracking`, GRDB's default: its region may change from one fetch
    /// to the next, so GRDB re-fetches on the writer's connection, inside the commit, before the write returns.
    /// `grdb+statements` uses `trackingConstantRegion`, GRDB's advice for a region that never changes (as here): the
    /// fetch runs on one of the pool's readers, concurrently with the next write. The fetch is the flavor's own `page`
    /// and `count(where:)`.
    package func observe(_ query: ObservedQuery, deliver: @escaping @Sendable (ObservedResult) -> Void) throws
        -> any ItemObservation
    {
        let counts = ObservationCounts()
        let flavor = self.flavor
        let fetch: @Sendable (Database) throws -> ObservedResult = { db in
            ObservedResult(
                items: try Self.page(query.page, flavor: flavor, in: db),
                count: try query.filters.reduce(0) { try $0 + Self.count(where: $1, flavor: flavor, in: db) })
        }
        let observation =
            flavor == .statements ? ValueObservation.trackingConstantRegion(fetch) : ValueObservation.tracking(fetch)
        let cancellable = observation.handleEvents(
            willFetch: { counts.fetches.add(1, ordering: .relaxed) },
            databaseDidChange: { counts.changes.add(1, ordering: .relaxed) }
        ).start(
            in: database, scheduling: .async(onQueue: DispatchQueue(label: "observer")),
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
