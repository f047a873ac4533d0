import PersistenceBench

extension MemoryItemStore: ConcurrentReadStore {
    /// Reads under the store's readers–writer lock, which every write to the items holds alone: the least a Swift
    /// array shared between two threads needs.
    public func makeConcurrentReader() throws -> any ItemReader { LockedReader(store: self) }

    /// One commit of an import: the items, then the commit (the whole document, for `json` and `plist`). Readers
    /// see the items as soon as they are in the heap, as an app's interface sees its model: before the file holds
    /// them.
    public func insertCommitted(_ batch: [Item]) throws {
        try insert(batch)
        try commit()
    }
}

private final class LockedReader: ItemReader {
    private let store: MemoryItemStore

    init(store: MemoryItemStore) { self.store = store }

    func item(id: Int64) throws -> Item? { store.itemsLock.reading { store.slot(id) } }

    func close() throws {}
}
