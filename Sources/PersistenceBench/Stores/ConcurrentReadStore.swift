/// Items read from a second thread while the store's own thread writes: what an app's interface does during a
/// background import (`read-while-import`).
///
/// Each store opens its reader the way its users do: a second SQLite connection, GRDB's pool readers, a context
/// of its own that merges the writer's saves (`orm`), LMDB read transactions, a committed snapshot of `packed`'s
/// files. The store's thread goes on writing through the store itself (`ItemStore.insertCommitted`).
package protocol ConcurrentReadStore: SearchStore {
    /// A reader for one other thread, opened on the store's thread before that thread starts; closed on the
    /// store's thread after it ended, before the store closes.
    func makeConcurrentReader() throws -> any QueryReader
}

/// A store whose reader can hold one read snapshot open while the store writes (`pinned-reader`): a transaction an
/// app forgot to end, or a long export.
///
/// What the snapshot keeps alive (the WAL frames a checkpoint may not pass, the pages LMDB may not reuse, the mappings
/// of `packed`'s old lengths) stays until the reader is closed.
package protocol SnapshotPinningStore: ConcurrentReadStore {
    /// A reader whose every read answers from the committed state when it was made, whatever commits after it,
    /// until it is closed: made and used on the store's thread (or on one other thread), closed before the store.
    func pinSnapshot() throws -> any ItemReader
}

/// A reader for another thread that also answers an app's list and search (`page-readers`, `search-readers`): each
/// question answered as the store's own `page` and `search` answer it, in the store's idiom for another thread.
package protocol QueryReader: ItemReader {
    /// One page of items, as `ItemStore.page` gives it.
    func page(_ query: ItemPageQuery) throws -> [Item]
    /// A keystroke's count and first page, as `SearchStore.search` gives them.
    func search(_ search: TitleSearch) throws -> TitleSearchAnswer
}

/// A handle that reads items on one thread, beside the writer on another.
///
/// Used by one thread at a time: it may be made on one thread, used on a second, and closed on the first once
/// the second has finished with it.
package protocol ItemReader: AnyObject {
    /// The committed item with this id, or nil: never a write in progress.
    func item(id: Int64) throws -> Item?
    /// Releases what the reader holds (a connection, a transaction slot, a snapshot).
    func close() throws
}
