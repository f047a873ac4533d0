import Foundation
import Synchronization

/// A query kept fresh while the store changes: what `@FetchAll`, `@Query` and an `@Observable` model refetching on
/// a save notification do (`observe`, `observe-burst`).
package protocol ObservableItemStore: ItemStore {
    /// Starts observing `query` through the store's own change mechanism, on threads of the store's: `deliver`
    /// receives the query's result once at the start, then a fresh result after commits, for as long as the
    /// observation runs. The store's own thread goes on writing.
    func observe(_ query: ObservedQuery, deliver: @escaping @Sendable (ObservedResult) -> Void) throws
        -> any ItemObservation
}

/// A running observation.
package protocol ItemObservation: AnyObject {
    /// Change notices the store gave the observer: commits it was told of (several may arrive before one query).
    var notifications: Int { get }
    /// Times the query ran after the first: once per notice, or fewer where the store coalesces notices.
    var requeries: Int { get }
    /// Stops the observation; nothing is delivered once it returns. Throws the error that stopped the observer,
    /// if one did.
    func cancel() throws
}

/// The observed question: the first page of `page`'s query for one priority, and how many items have it.
package struct ObservedQuery: Sendable, Equatable {
    package var priority: Item.Priority?
    package var limit: Int

    package init(priority: Item.Priority?, limit: Int) {
        self.priority = priority
        self.limit = limit
    }

    /// The page this query shows.
    package var page: ItemPageQuery { ItemPageQuery(priority: priority, limit: limit, offset: 0) }

    /// The two count filters whose sum is the query's count.
    package var filters: [ItemFilter] { [false, true].map { ItemFilter(priority: priority, isInStock: $0) } }
}

/// What an observer holds: the page and the count.
package struct ObservedResult: Sendable, Equatable {
    package var items: [Item]
    package var count: Int

    package init(items: [Item], count: Int) {
        self.items = items
        self.count = count
    }

    /// The result as answered by `store`'s own `page` and `count(where:)`.
    package static func query(_ query: ObservedQuery, in store: any ItemStore) throws -> ObservedResult {
        ObservedResult(
            items: try store.page(query.page), count: try query.filters.reduce(0) { try $0 + store.count(where: $1) })
    }
}

/// The first `limit` items in `ItemPageQuery` order among those offered: a page found by one pass over unsorted
/// items (the stores that keep no sorted index for a live query: `packed`'s snapshots, `memory`).
package struct FirstItems {
    package let limit: Int
    package private(set) var items: [Item] = []

    package init(limit: Int) { self.limit = limit }

    /// Whether an item with this `isInStock` could still join the page: a test before decoding the rest of it.
    ///
    /// Out of stock sorts first, so once the page is full of out-of-stock items no in-stock item can join.
    package func mightTake(isInStock: Bool) -> Bool {
        guard items.count == limit, let last = items.last else { return true }
        return !(isInStock && !last.isInStock)
    }

    package mutating func offer(_ item: Item) {
        if items.count == limit {
            guard let last = items.last, ItemPageQuery.areInIncreasingOrder(item, last) else { return }
            items.removeLast()
        }
        var low = 0
        var high = items.count
        while low < high {
            let middle = (low + high) / 2
            if ItemPageQuery.areInIncreasingOrder(items[middle], item) { low = middle + 1 } else { high = middle }
        }
        items.insert(item, at: low)
    }
}

/// A commit sequence that threads can wait on: stores without a change mechanism of their own bump it after every
/// commit, and their observers wait for it to move.
package final class CommitSignal: @unchecked Sendable {
    private let condition = NSCondition()
    private var sequence: UInt64 = 0

    package init() {}

    /// Called after a commit returns.
    package func committed() {
        condition.lock()
        sequence &+= 1
        condition.broadcast()
        condition.unlock()
    }

    /// The current sequence.
    package var current: UInt64 {
        condition.lock()
        defer { condition.unlock() }
        return sequence
    }

    /// Waits until the sequence passes `seen` and returns it, or returns nil once `cancelled()` is true (checked
    /// whenever the waiter wakes: set it, then `wakeAll()`).
    package func wait(after seen: UInt64, cancelled: () -> Bool) -> UInt64? {
        condition.lock()
        defer { condition.unlock() }
        while sequence == seen && !cancelled() { condition.wait() }
        return cancelled() ? nil : sequence
    }

    /// Wakes every waiter without a commit, so that it looks at its cancellation.
    package func wakeAll() {
        condition.lock()
        condition.broadcast()
        condition.unlock()
    }
}

/// An observer on a thread of its own that re-queries whenever a `CommitSignal` moves: how a store without a change
/// mechanism of its own watches its commit sequence.
///
/// Commits that happen while it queries are coalesced into one notice.
package final class SignalledObservation: ItemObservation, @unchecked Sendable {
    private let signal: CommitSignal
    private let requery: () throws -> ObservedResult
    private let deliver: @Sendable (ObservedResult) -> Void
    private let finish: () throws -> Void
    private let finished = DispatchSemaphore(value: 0)
    private let cancelled = Atomic<Bool>(false)
    // Written by the observer's thread, read after `finished`.
    private var error: (any Error)?
    package private(set) var notifications = 0
    package private(set) var requeries = 0

    /// Starts the observer: it queries once and delivers, then waits for `signal` to move.
    ///
    /// `finish` runs once the observer's thread has ended, on the thread that cancels (to close what `requery` read
    /// through).
    package init(
        signal: CommitSignal, requery: @escaping () throws -> ObservedResult,
        deliver: @escaping @Sendable (ObservedResult) -> Void, finish: @escaping () throws -> Void = {}
    ) {
        self.signal = signal
        self.requery = requery
        self.deliver = deliver
        self.finish = finish
        let thread = Thread { [self] in
            defer { finished.signal() }
            do {
                var seen = self.signal.current
                self.deliver(try self.requery())
                while let sequence = self.signal.wait(after: seen, cancelled: { cancelled.load(ordering: .relaxed) }) {
                    notifications += Int(sequence &- seen)
                    seen = sequence
                    let result = try self.requery()
                    requeries += 1
                    self.deliver(result)
                }
            } catch {
                self.error = error
            }
        }
        thread.name = "observer"
        thread.start()
    }

    package func cancel() throws {
        cancelled.store(true, ordering: .relaxed)
        signal.wakeAll()
        finished.wait()
        try finish()
        if let error { throw error }
    }
}
