import Foundation

/// Items handed from a library's thread to the thread that asked for them: how `forEachItem(_:)` streams rows that
/// a library delivers to an escaping callback, or an async store produces, without collecting them all.
///
/// The feed holds at most `capacity` items: a producer that gets ahead waits in `yield(_:)` until the asking thread
/// has taken them, so memory stays bounded whatever the store's size. The asking thread is woken when half the
/// capacity is buffered (or the feed finishes) and takes everything buffered at once, so the hand-off costs a lock per
/// item and a wake-up per half a feed, not a wake-up per item.
///
/// ```swift
/// func forEachItem(_ body: (Item) throws -> Void) throws {
///     try ItemFeed.stream(into: body) { feed in
///         // The row callback cannot throw: `offer` says whether the reader still wants rows.
///         library.query("SELECT … ORDER BY id", onRow: { row in _ = feed.offer(Item(row)) },
///                       onEnd: { error in feed.finish(throwing: error) })
///     }
/// }
/// ```
///
/// A library that queues every row on its own thread before the callback sees it (SwiftNIO's futures API) holds them
/// there whatever the feed's capacity: the feed bounds only what it holds itself.
public final class ItemFeed: @unchecked Sendable {
    /// The most items a feed holds before its producer waits: enough that the asking thread wakes once per few
    /// thousand rows, few enough that a feed holds well under a megabyte of `Item`s.
    public static let defaultCapacity = 1024

    /// The most items the feed holds before `yield(_:)` waits.
    public let capacity: Int
    /// How many buffered items wake the asking thread: half the capacity, so that the producer goes on filling the
    /// other half while the asking thread works through a batch.
    private let wakeAt: Int
    // Every field below is read and written with `condition` locked.
    private let condition = NSCondition()
    private var buffered: [Item] = []
    private var finished = false
    private var failure: (any Error)?
    private var stopped = false

    public init(capacity: Int = ItemFeed.defaultCapacity) {
        precondition(capacity > 0, "a feed holds at least one item")
        self.capacity = capacity
        wakeAt = max(1, capacity / 2)
        buffered.reserveCapacity(capacity)
    }

    /// Hands one item to the asking thread, from any thread; waits while the feed is full.
    ///
    /// - Throws: `ItemFeed.Stopped` once the asking side has stopped (its body threw, or it gave up): the producer
    ///   should end its query and call `finish`.
    public func yield(_ item: Item) throws {
        condition.lock()
        defer { condition.unlock() }
        while buffered.count >= capacity && !stopped { condition.wait() }
        guard !stopped else { throw Stopped() }
        precondition(!finished, "ItemFeed.yield after finish")
        buffered.append(item)
        if buffered.count == wakeAt { condition.broadcast() }
    }

    /// `yield(_:)` for a callback that cannot throw: hands one item over, waiting while the feed is full, and returns
    /// false, taking nothing, once the asking side has stopped: the producer should then end its query if its library
    /// can, ignore the rest of the rows, and call `finish`.
    public func offer(_ item: Item) -> Bool {
        do {
            try yield(item)
            return true
        } catch {
            return false
        }
    }

    /// Ends the feed, with the producer's error if it failed: the asking thread returns, or throws `error`, once it
    /// has taken every item yielded before.
    ///
    /// Calls after the first are ignored.
    public func finish(throwing error: (any Error)? = nil) {
        condition.lock()
        defer { condition.unlock() }
        guard !finished else { return }
        finished = true
        failure = error
        condition.broadcast()
    }

    /// The producer's side stopped by the asking side (`yield(_:)` throws it).
    public struct Stopped: Error, CustomStringConvertible {
        public var description: String { "the asking side stopped reading the feed" }
    }

    /// Runs `start`, which starts a producer that yields items into the feed (a library's query with an escaping
    /// row callback, a task) and calls `finish` when it ends, then calls `body` with every item on this thread, in
    /// the order they were yielded, until the feed finishes.
    ///
    /// - Throws: what `start` or `body` throws (the producer's next `yield` then throws `Stopped`, and this returns
    ///   once it has finished), or the error the producer finished with.
    public static func stream(
        into body: (Item) throws -> Void, capacity: Int = defaultCapacity,
        start: (ItemFeed) throws -> Void
    ) throws {
        let feed = ItemFeed(capacity: capacity)
        do { try start(feed) } catch {
            feed.abandon()
            throw error
        }
        try feed.drain(into: body)
    }

    /// Takes batches until the feed finishes.
    ///
    /// If `body` throws, stops the producer and waits for its `finish`, so that nothing of the producer's outlives the
    /// call.
    private func drain(into body: (Item) throws -> Void) throws {
        var batch: [Item] = []
        batch.reserveCapacity(capacity)
        while true {
            condition.lock()
            while buffered.count < wakeAt && !finished { condition.wait() }
            swap(&batch, &buffered)
            let ended = finished && batch.isEmpty
            let error = failure
            condition.broadcast()
            condition.unlock()
            if ended {
                if let error { throw error }
                return
            }
            do {
                for item in batch { try body(item) }
            } catch {
                stop()
                throw error
            }
            batch.removeAll(keepingCapacity: true)
        }
    }

    /// Stops a producer that `start` may have launched before it threw, without waiting for its `finish`.
    private func abandon() { stop(awaitingFinish: false) }

    /// Stops the producer: its next `yield` throws `Stopped`; with `awaitingFinish`, returns once it has finished.
    private func stop(awaitingFinish: Bool = true) {
        condition.lock()
        defer { condition.unlock() }
        stopped = true
        buffered.removeAll()
        condition.broadcast()
        while awaitingFinish && !finished { condition.wait() }
    }
}
