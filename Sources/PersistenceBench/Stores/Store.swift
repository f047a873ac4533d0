import Foundation

/// A persistence strategy under test, opened on one directory that it owns.
///
/// A store answers workload *questions* in its own idiom; what it can answer is declared by the capability
/// protocols it adopts: `ItemStore` (items, and with it `SearchStore`, `MigrationStore`, `ObservableItemStore`,
/// `ConcurrentReadStore`, `EngineFloorStore`), `AssociationStore`, `HouseStore` (ordered children), `ProfileStore`
/// (time profiles), `IntegrityCheckingStore` and `ByteLayoutStore`. A store that lacks a capability does not
/// conform, and its cells read "n/a".
public protocol Store: AnyObject, SendableMetatype {
    /// Flushes and releases everything. The store is not used after this; its files stay.
    func close() throws

    /// Ends a bulk load (items, a league, houses), inside the timed region. A store that commits every batch has
    /// nothing left to do (the default); an object-graph store that saves its context once, after the last batch,
    /// saves here.
    func finishInserting() throws

    /// Brings the store's files to the state a reopen would find without replaying work, at the end of the timed
    /// phase of every workload that writes. A store with a write-ahead log checkpoints it into the database and
    /// truncates it: the work its close would otherwise do after the timer. A store whose commit writes pages to
    /// their final place has nothing left to do (the default).
    func settle() throws

    /// The bytes a closed store occupies in `directory`. The default sums the files' logical sizes.
    static func bytesOnDisk(at directory: URL) throws -> Int64

    /// The count questions this store answers from a count it keeps up to date on every write, in O(1), rather
    /// than by counting what it stores: a legitimate design, labelled in reports and kept out of "best store".
    static var maintainedCounts: Set<MaintainedCount> { get }
}

/// A count question that a store may answer from a maintained count (`Store.maintainedCounts`).
public enum MaintainedCount: String, Sendable {
    /// `count(where:)`: items per (priority, stock) filter.
    case itemsPerFilter
    /// `teamCountsBySport()`: teams per sport.
    case teamsPerSport
}

extension ItemStore {
    public func items(ids: [Int64]) throws -> [Item?] { try ids.map { try item(id: $0) } }

    public func itemsKeyByKey(ids: [Int64]) throws -> [Item?] { try items(ids: ids) }

    public func insertCommitted(_ batch: [Item]) throws { try insert(batch) }
}

extension Store {
    public func finishInserting() throws {}

    public func settle() throws {}

    public static func bytesOnDisk(at directory: URL) throws -> Int64 {
        try FileSystem.logicalSize(of: directory)
    }

    public static var maintainedCounts: Set<MaintainedCount> { [] }
}

/// The CRUD questions about `Item`s.
///
/// Each call is one unit of work in the store's idiom: one transaction for a batch write, one lookup for a
/// read. The workloads decide the batch sizes, so that every store does the same work.
public protocol ItemStore: Store {
    /// Inserts items that are not yet in the store: one batch of a bulk load, in one transaction.
    func insert(_ batch: [Item]) throws
    /// Inserts one item in its own transaction, durable on disk before returning.
    func insertDurably(_ item: Item) throws
    /// Inserts items not yet stored and commits them, so that other readers and a reopen see them: one commit of
    /// an import, an observed change or a crash check's transaction. A store whose every `insert` is a
    /// transaction just inserts (the default); an object-graph store saves.
    func insertCommitted(_ batch: [Item]) throws
    /// The item with this id, or nil.
    func item(id: Int64) throws -> Item?
    /// The items with these ids, in the order asked (nil where none; an id may repeat): a batch of lookups with the
    /// library's own batch call (`get-batch`): one `WHERE id IN (…)` statement per `KeyBatch.keysPerStatement`
    /// keys for SQLite, GRDB's `fetchAll(db, keys:)`, one fetch with an `IN` predicate for the ORM. A library
    /// without one looks each key up in one read (one read transaction for LMDB); a store whose lookups share
    /// nothing a batch could amortize asks `item(id:)` for each (the default).
    func items(ids: [Int64]) throws -> [Item?]
    /// The same answers as `items(ids:)`, each key looked up alone inside one read transaction (`get-batch-loop`):
    /// the per-key loop a user writes without the batch call. A store whose batch call is that loop already answers
    /// with it (the default).
    func itemsKeyByKey(ids: [Int64]) throws -> [Item?]
    /// Calls `body` with every item in id order, streaming: never an array of all items.
    func forEachItem(_ body: (Item) throws -> Void) throws
    /// How many items match the filter.
    func count(where filter: ItemFilter) throws -> Int
    /// How many items have a price in `range`. No store keeps an index or a counter on price: every store looks
    /// at every item's price.
    func count(pricedIn range: PriceRange) throws -> Int
    /// One page of items, in `ItemPageQuery.areInIncreasingOrder` order.
    func page(_ query: ItemPageQuery) throws -> [Item]
    /// At most `limit` items with ids from `id` up, in id order: a short range scan by key (YCSB's SCAN).
    func items(startingAt id: Int64, limit: Int) throws -> [Item]
    /// Applies the updates (to existing items) in one transaction.
    func update(_ updates: [ItemUpdate]) throws
    /// Deletes the items with these ids (all exist) in one transaction.
    func delete(ids: [Int64]) throws
}

/// Search as you type over item titles (`search`): every keystroke asks again.
public protocol SearchStore: ItemStore {
    /// How many items' titles contain `search.text`, ASCII case-insensitively, and the first `search.limit` of
    /// them by title (byte-wise), then id: in the store's own idiom (`docs/workloads.md`, "search").
    func search(_ search: TitleSearch) throws -> TitleSearchAnswer
    /// The same answer from one statement (`search-one-statement`): the count beside the page's rows
    /// (`COUNT(*) OVER ()`), one pass over what matches where `search` asks a count and a page apart. A store
    /// without statements answers as `search` does (the default).
    func searchInOneStatement(_ search: TitleSearch) throws -> TitleSearchAnswer
}

extension SearchStore {
    public func searchInOneStatement(_ search: TitleSearch) throws -> TitleSearchAnswer {
        try self.search(search)
    }
}

/// The `unique-title` migration: a new constraint that the stored data violates (about 5% of titles repeat).
package protocol MigrationStore: ItemStore {
    /// Deletes every item whose title an item with a lower id also has, then enforces unique titles from now on
    /// (with a unique index where the store has such a thing): an insert or update that would repeat a title
    /// fails. The store's idiom decides how; the result must be the same.
    ///
    /// - Returns: how many items were deleted.
    func migrateToUniqueTitles() throws -> Int
}

/// The `Sport` 1—n `Team` association: an aggregate over a to-many relationship.
package protocol AssociationStore: Store {
    /// Inserts sports (none stored yet) in one transaction.
    func insert(sports: [Sport]) throws
    /// Inserts teams of stored sports in one transaction: one batch of a bulk load (`finishInserting` ends it).
    func insert(teams: [Team]) throws
    /// Every sport in id order with its number of teams, 0 where it has none: the store's idiomatic aggregate.
    func teamCountsBySport() throws -> [TeamCount]
}

/// Houses, their ordered floors and the floors' ordered rooms: ordered relationships and a cascading delete.
package protocol HouseStore: Store {
    /// Inserts houses with their floors and rooms (none stored yet) in one transaction, keeping the order of
    /// every house's floors and every floor's rooms: one batch of a bulk load (`finishInserting` ends it).
    func insert(houses: [House]) throws
    /// Calls `body` with every house in id order, its floors and their rooms in their stored order, streaming.
    func forEachHouse(_ body: (House) throws -> Void) throws
    /// Deletes the houses with these ids (all exist) with their floors and rooms, in one transaction.
    func deleteHouses(ids: [Int64]) throws
    /// How many houses, floors and rooms are stored, counted by kind and not through their owners.
    func houseCounts() throws -> HouseCounts
}

/// A time profile: samples with call stacks, at tens of millions of records.
package protocol ProfileStore: Store {
    /// Inserts samples (timestamps ascending, after every stored one) in one transaction, each distinct call stack
    /// stored once: one batch of an ingest (`finishInserting` ends it).
    func insert(samples: [Sample]) throws
    /// The `limit` leaf frames seen most often in the `count` samples that start at the first timestamp at or
    /// after `timestamp`, most frequent first, ties by frame (`FrameCount.top`).
    func topLeafFrames(from timestamp: Int64, samples count: Int, limit: Int) throws -> [FrameCount]
    /// Calls `body` with every sample in time order, streaming.
    func forEachSample(_ body: (Sample) throws -> Void) throws
}

/// What a store promises to keep when its process is killed or the machine loses power, as `persistbench crash`
/// checks it.
public enum DurabilityPromise: String, Codable, Sendable {
    /// Every transaction whose commit returned survives a kill and a power cut.
    case everyCommit
    /// Every committed transaction survives a kill; a power cut may lose the last ones, never part of one, and
    /// never corrupts (SQLite's WAL with `synchronous=NORMAL`, LMDB's `MDB_NOMETASYNC`).
    case committedPrefix
    /// Every committed transaction survives a kill; a power cut may lose or damage anything written since the last
    /// clean close (a store that never flushes while it runs: `packed+nosync`).
    case survivesKills
    /// Nothing survives the process (the harness floor).
    case nothing

    package var summary: String {
        switch self {
        case .everyCommit: "every committed transaction survives a kill and a power cut"
        case .committedPrefix:
            "every committed transaction survives a kill; a power cut may lose the last ones, never corrupts"
        case .survivesKills:
            "every committed transaction survives a kill; a power cut may lose or damage anything since the last "
                + "clean close"
        case .nothing: "nothing survives the process"
        }
    }
}

/// A store that keeps items as plain bytes in a layout of its own (`packed`), so that the machine's limits for
/// moving the same bytes can be measured beside it: `limit-write` for `insert`, `limit-scan` for `scan`.
package protocol ByteLayoutStore: Store {
    /// The store's directory, where `limit-write` writes its file (and removes it).
    var directory: URL { get }
    /// The bytes this store keeps for `batch`, in its layout: for `packed`, its rows and its strings.
    func storedBytes(of batch: [Item]) throws -> [UInt8]
}
