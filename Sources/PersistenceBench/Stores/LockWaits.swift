import Foundation
import Synchronization

/// How often, and how long, a store's writes waited for a lock that another connection or process held, since
/// the store opened (`two-processes`).
package struct LockWaits: Codable, Equatable, Sendable {
    /// Lock requests that found the lock held and waited for it, each counted once however often it retried.
    package var waits = 0
    /// The time spent waiting, in seconds.
    package var seconds = 0.0
    /// Lock requests that waited the whole timeout and gave up: the write failed (`SQLITE_BUSY`).
    package var timeouts = 0

    package init(waits: Int = 0, seconds: Double = 0, timeouts: Int = 0) {
        self.waits = waits
        self.seconds = seconds
        self.timeouts = timeouts
    }

    package static func + (left: LockWaits, right: LockWaits) -> LockWaits {
        LockWaits(
            waits: left.waits + right.waits, seconds: left.seconds + right.seconds,
            timeouts: left.timeouts + right.timeouts)
    }
}

/// A store that counts its writes' waits for another connection's or process's lock (`LockWaits`).
package protocol LockWaitCountingStore: Store {
    /// What its writes waited since it opened.
    var lockWaits: LockWaits { get }
    /// How it waits, in a few words: "busy_timeout 5 s", "LMDB's writer mutex, no timeout".
    static var lockWaitPolicy: String { get }
}

/// A tally of lock waits, shared by the threads (and connections) of one store.
package final class LockWaitTally: Sendable {
    private let tally = Mutex(LockWaits())

    package init() {}

    /// What was recorded so far.
    package var waits: LockWaits { tally.withLock { $0 } }

    /// Records one request that waited `seconds` (and, with `timedOut`, gave up).
    package func record(seconds: Double, newWait: Bool = true, timedOut: Bool = false) {
        tally.withLock { tally in
            if newWait { tally.waits += 1 }
            tally.seconds += seconds
            if timedOut { tally.timeouts += 1 }
        }
    }
}

/// SQLite's `busy_timeout`, counted: a busy handler that sleeps exactly as SQLite's own timeout handler does
/// (1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, then 100 ms between tries, until the timeout) and records each wait in
/// a `LockWaitTally`.
///
/// Every SQLite-based store's connections use it in place of `sqlite3_busy_timeout`, so that their waits are counted
/// and not only suffered; a connection that is never in another's way never calls it.
package final class BusyTimeout: Sendable {
    package let milliseconds: Int
    package let tally: LockWaitTally

    private static let delays = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100]
    private static let totals = [0, 1, 3, 8, 18, 33, 53, 78, 103, 128, 178, 228]

    package init(milliseconds: Int, tally: LockWaitTally = LockWaitTally()) {
        self.milliseconds = milliseconds
        self.tally = tally
    }

    /// SQLite's busy handler: `tries` is how often it was called before for this lock request.
    ///
    /// Sleeps and returns true to try again, or returns false once the timeout is spent (the request then fails with
    /// `SQLITE_BUSY`).
    package func retry(afterTries tries: Int) -> Bool {
        let last = Self.delays.count - 1
        var delay = tries <= last ? Self.delays[tries] : Self.delays[last]
        let prior = tries <= last ? Self.totals[tries] : Self.totals[last] + Self.delays[last] * (tries - last)
        if prior + delay > milliseconds {
            delay = milliseconds - prior
            if delay <= 0 {
                tally.record(seconds: 0, newWait: false, timedOut: true)
                return false
            }
        }
        let start = monotonicNanoseconds()
        usleep(UInt32(delay) * 1_000)
        tally.record(seconds: secondsSince(start), newWait: tries == 0)
        return true
    }
}
