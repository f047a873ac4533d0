import PersistenceBench
import SQLiteSupport

/// A second process on the store's file (`two-processes`): SQLite's file locks let both in; a write that finds the
/// other process's write in progress waits, through every connection's `busy_timeout`, counted.
extension GRDBItemStore: LockWaitCountingStore {
    package var lockWaits: LockWaits { busyTimeout.tally.waits }
    package static var lockWaitPolicy: String { SQLiteConnection.lockWaitPolicy }
}
