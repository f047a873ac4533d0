import CSQLite
import Foundation
import PersistenceBench
import SQLiteSupport

extension SQLiteItemStore: ObservableItemStore {
    /// SQLite's own hooks on the writer's connection: the update hook notes a change to `item` (it names the table
    /// and rowid, not the columns, so any change to `item` counts), the commit hook carries it to the commit, and
    /// once COMMIT has returned the observer is signalled.
    ///
    /// The observer re-queries on a connection of its own (`openSecondConnection`) with `page` and `count(where:)`.
    package func observe(_ query: ObservedQuery, deliver: @escaping @Sendable (ObservedResult) -> Void) throws
        -> any ItemObservation
    {
        let observer = try openSecondConnection()
        let hooks = ItemChangeHooks(on: connection)
        return SignalledObservation(
            signal: hooks.commits, requery: { try ObservedResult.query(query, in: observer) }, deliver: deliver,
            finish: { [connection] in
                hooks.remove(from: connection)
                try observer.close()
            })
    }
}

/// The state SQLite's hooks share through their context pointer.
///
/// Used on the writer's thread only (the hooks run inside its statements), but for `commits`, which the observer waits
/// on.
private final class ItemChangeHooks {
    let commits = CommitSignal()
    /// A row of `item` changed in the transaction in progress.
    var changedInTransaction = false
    /// The transaction committing changed `item`: signal once COMMIT returns.
    var committing = false

    init(on connection: SQLiteConnection) {
        let context = Unmanaged.passRetained(self).toOpaque()
        sqlite3_update_hook(
            connection.handle,
            { context, _, _, table, _ in
                guard let context, let table, strcmp(table, "item") == 0 else { return }
                Unmanaged<ItemChangeHooks>.fromOpaque(context).takeUnretainedValue().changedInTransaction = true
            }, context)
        sqlite3_commit_hook(
            connection.handle,
            { context in
                guard let context else { return 0 }
                let hooks = Unmanaged<ItemChangeHooks>.fromOpaque(context).takeUnretainedValue()
                hooks.committing = hooks.changedInTransaction
                hooks.changedInTransaction = false
                return 0  // let the commit go ahead
            }, context)
        sqlite3_rollback_hook(
            connection.handle,
            { context in
                guard let context else { return }
                Unmanaged<ItemChangeHooks>.fromOpaque(context).takeUnretainedValue().changedInTransaction = false
            }, context)
        connection.didCommit = { [unowned self] in
            guard committing else { return }
            committing = false
            commits.committed()
        }
    }

    /// Removes the hooks and releases the reference they held.
    func remove(from connection: SQLiteConnection) {
        sqlite3_update_hook(connection.handle, nil, nil)
        sqlite3_commit_hook(connection.handle, nil, nil)
        sqlite3_rollback_hook(connection.handle, nil, nil)
        connection.didCommit = nil
        Unmanaged.passUnretained(self).release()
    }
}
