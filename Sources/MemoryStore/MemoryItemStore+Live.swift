import PersistenceBench

extension MemoryItemStore: ConcurrentReadStore {
    /// Reads under the store's readers–writer lock, which every write to the items holds alone: the least a Swift
    /// array shared between two threads needs.
    package func makeConcurrentReader() throws -> any ItemReader { LockedReader(store: self) }
}

private final class LockedReader: ItemReader {
    private let store: MemoryItemStore

    init(store: MemoryItemStore) { self.store = store }

    func item(id: Int64) throws -> Item? { store.itemsLock.reading { store.slot(id) } }

    func close() throws {}
}
