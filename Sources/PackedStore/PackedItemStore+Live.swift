import PersistenceBench

/// How `packed` is read from other threads while its one writer commits.
///
/// After every commit the writer publishes a `PackedSnapshot`: the committed header and the mappings of
/// `items.rows`, `strings.arena` and `items.tombstones` current then. A reader takes the snapshot under the store's
/// `readersLock` and reads only what its header commits (rows below its row count, strings below its arena
/// length), so it never sees bytes a commit has appended but not yet committed. A mapping is unmapped only when its
/// last holder lets go, so a writer that outgrows a map and remaps the file (or compacts into new files) leaves
/// every reader's mapping in place. Appended rows and strings are written without the lock: they go beyond every
/// published length. What a commit rewrites in place (row images of updates, tombstone bits of deletes) is applied,
/// and every new state published, while the writer holds `readersLock` alone, so a reader sees a row either before
/// or after, never half rewritten; the commit waits for the read in progress (a lookup holds the lock for one
/// lookup, an observer for one pass).
///
/// A page or a keystroke reads the published snapshot the same way, under the lock for the whole pass. A keystroke
/// scans its titles as the store's own search does. A page cannot use the store's order index, which the writer
/// rebuilds (and commits) after its writes on its own thread: a reader's page is one pass over the snapshot's rows of
/// the page's priority, keeping the first offset + limit in page order.
extension PackedItemStore: ConcurrentReadStore {
    package func makeConcurrentReader() throws -> any QueryReader { PackedItemReader(store: self) }

    /// A page without the order index: one pass over `view`'s first `rowCount` rows, keeping the rows of the query's
    /// priority that come first in page order (stock, then title bytes, then id).
    static func page(_ query: ItemPageQuery, scanning view: MappedView, rowCount: Int) throws -> [Item] {
        typealias Candidate = (isInStock: Bool, title: UnsafeBufferPointer<UInt8>, id: Int64, row: Int)
        func precedes(_ a: Candidate, _ b: Candidate) -> Bool {
            if a.isInStock != b.isInStock { return !a.isInStock }
            if !a.title.elementsEqual(b.title) { return a.title.lexicographicallyPrecedes(b.title) }
            return a.id < b.id
        }
        let priority = Int(ItemFilter.priorityCode(query.priority))
        let keep = query.offset + query.limit
        var first: [Candidate] = []
        first.reserveCapacity(keep + 1)
        for row in 0..<rowCount where !view.isDeleted(row) {
            let key = view.filterKey(ofRow: row)
            guard key >> 1 == priority else { continue }
            let candidate = (key & 1 != 0, try view.bytes(view.titleReference(ofRow: row)), view.id(atRow: row), row)
            if first.count == keep, let last = first.last, !precedes(candidate, last) { continue }
            var (low, high) = (0, first.count)
            while low < high {
                let middle = (low + high) / 2
                if precedes(candidate, first[middle]) { high = middle } else { low = middle + 1 }
            }
            first.insert(candidate, at: low)
            if first.count > keep { first.removeLast() }
        }
        return try first.dropFirst(query.offset).map { try view.item(at: $0.row) }
    }
}

/// A committed state of `packed` and the mappings that cover it.
final class PackedSnapshot: @unchecked Sendable {
    let state: StoreHeader
    let view: PackedItemStore.MappedView
    // Held so that the view's bytes stay mapped.
    private let rows: Mapping
    private let arena: Mapping
    private let tombstones: Mapping

    init(state: StoreHeader, rows: Mapping, arena: Mapping, tombstones: Mapping, arenaPath: String) {
        self.state = state
        self.rows = rows
        self.arena = arena
        self.tombstones = tombstones
        view = PackedItemStore.MappedView(
            rows: rows.bytes(StoreHeader.rowsStart + state.rowCount * ItemRow.size),
            arena: arena.bytes(state.arenaLength),
            tombstones: tombstones.bytes(FileMagic.headerSize + (state.rowCount + 7) / 8), arenaPath: arenaPath)
    }
}

/// Lookups, pages and keystrokes in the published snapshot, for one thread.
private final class PackedItemReader: QueryReader {
    private let store: PackedItemStore
    /// Live rows in id order for the snapshot of this sequence, when its ids do not ascend in row order.
    private var permutation: (sequence: UInt64, rows: [UInt32])?

    init(store: PackedItemStore) { self.store = store }

    func item(id: Int64) throws -> Item? {
        try store.readersLock.reading {
            guard let snapshot = store.published else { throw PackedError("reading a closed packed store") }
            let row = PackedItemStore.liveRow(id: id, in: snapshot.view, state: snapshot.state) {
                rows(of: snapshot)
            }
            return try row.map { try snapshot.view.item(at: $0) }
        }
    }

    func page(_ query: ItemPageQuery) throws -> [Item] {
        try store.readersLock.reading {
            guard let snapshot = store.published else { throw PackedError("reading a closed packed store") }
            return try PackedItemStore.page(query, scanning: snapshot.view, rowCount: snapshot.state.rowCount)
        }
    }

    func search(_ search: TitleSearch) throws -> TitleSearchAnswer {
        try store.readersLock.reading {
            guard let snapshot = store.published else { throw PackedError("reading a closed packed store") }
            return try PackedItemStore.search(search, in: snapshot.view, rowCount: snapshot.state.rowCount)
        }
    }

    private func rows(of snapshot: PackedSnapshot) -> [UInt32] {
        if let permutation, permutation.sequence == snapshot.state.sequence { return permutation.rows }
        let rows = PackedItemStore.idPermutation(of: snapshot.view, rowCount: snapshot.state.rowCount)
        permutation = (snapshot.state.sequence, rows)
        return rows
    }

    func close() throws {}
}

extension PackedItemStore: SnapshotPinningStore {
    /// The published state taken once and kept: its header and the mappings that cover it.
    ///
    /// Every lookup answers from its lengths and counts while the writer goes on appending past them and remapping;
    /// only the old mappings stay (in memory, not in the files) until `close`. `packed` keeps no old versions of a row:
    /// a commit that rewrites rows in place (an update, a delete) shows through, so what it pins is what an import
    /// leaves alone.
    package func pinSnapshot() throws -> any ItemReader {
        guard let snapshot = readersLock.reading({ published }) else {
            throw PackedError("pinning a snapshot of a closed packed store")
        }
        return PinnedPackedReader(store: self, snapshot: snapshot)
    }
}

/// Lookups in one pinned state, each under the store's `readersLock` as any reader's.
private final class PinnedPackedReader: ItemReader {
    private let store: PackedItemStore
    private var snapshot: PackedSnapshot?
    private var permutation: [UInt32]?

    init(store: PackedItemStore, snapshot: PackedSnapshot) {
        self.store = store
        self.snapshot = snapshot
    }

    func item(id: Int64) throws -> Item? {
        guard let snapshot else { throw PackedError("reading a released snapshot") }
        return try store.readersLock.reading {
            let row = PackedItemStore.liveRow(id: id, in: snapshot.view, state: snapshot.state) {
                if let permutation { return permutation }
                let rows = PackedItemStore.idPermutation(of: snapshot.view, rowCount: snapshot.state.rowCount)
                permutation = rows
                return rows
            }
            return try row.map { try snapshot.view.item(at: $0) }
        }
    }

    func close() throws { snapshot = nil }
}
