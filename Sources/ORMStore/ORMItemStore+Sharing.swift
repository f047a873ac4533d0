import PersistenceBench
import SQLiteSupport

/// A second process on the store's file (`two-processes`), as an app and its extension share a Core Data store:
/// SQLite's file locks let both in; a save that finds the other process's save in progress waits, through the
/// writer connection's `busy_timeout`, counted.
extension ORMItemStore: LockWaitCountingStore {
    package var lockWaits: LockWaits { container.connection.busyTimeout.tally.waits }
    package static var lockWaitPolicy: String { SQLiteConnection.lockWaitPolicy }
}
