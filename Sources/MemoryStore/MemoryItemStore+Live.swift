import PersistenceBench

extension MemoryItemStore: ConcurrentReadStore {
    /// Reads under the store's readers–writer lock, which every write to the items holds alone: the least a Swift
    /// array shared between two threads needs.
    package func makeConcurrentReader() throws -> any QueryReader { LockedReader(store: self) }
}

/// A page mends the page orders the writes left unsorted (`MemoryItemStore.page`), so it holds the lock alone, as a
/// write does; a lookup and a keystroke's scan hold it to read.
private final class LockedReader: QueryReader {
    private let store: MemoryItemStore

    init(store: MemoryItemStore) { self.store = store }

    func item(id: Int64) throws -> Item? { store.itemsLock.reading { store.slot(id) } }

    func page(_ query: ItemPageQuery) throws -> [Item] { try store.itemsLock.writing { try store.page(query) } }

    func search(_ search: TitleSearch) throws -> TitleSearchAnswer {
        try store.itemsLock.reading { try store.search(search) }
    }

    func close() throws {}
}
