import Foundation
import PersistenceBench

/// The heap stores: everything in Swift arrays, sets and dictionaries, answered in memory.
///
/// `memory` is the harness floor: nothing written while the store runs, so what is left of a cell's time is the
/// harness's own (generating, timing, digesting) and the least work any store must do to answer. YCSB's `BasicDB`
/// plays this role there. `json` and `plist` are the first thing most apps write: the same heap structures, decoded
/// whole from one Codable document at open and written whole at every commit (`+Document`).
///
/// The store keeps what the other stores keep, in the cheapest form: per-filter counts (a maintained count, as
/// `packed` has), page orders sorted at the end of a bulk load and mended by the first page after a write (the
/// written items taken out, sorted and merged back in), a set of titles once they are unique. `memory`'s close
/// writes a binary dump of everything (untimed, after the cell), and its open reads it, so that a fixture loaded
/// once can be copied for each cell like any store's: its `open` cells time that decode, not a floor.
public final class MemoryItemStore: MigrationStore {
    public static let kind = StoreKind(
        name: StoreKind.harnessFloorName,
        summary: "the harness floor: items in a Swift array indexed by id, counts kept, page orders sorted on "
            + "demand; nothing persisted while it runs (YCSB's BasicDB)",
        durability: "none: a commit writes nothing; close writes an untimed dump so that fixtures can be copied",
        promise: .nothing,
        configuration: "Swift arrays, sets and dictionaries in the heap; items.dump read at open, written at close",
        engine: { "Swift collections (this package)" }, type: MemoryItemStore.self,
        open: { try MemoryItemStore(directory: $0, persistence: .dumpAtClose) })

    /// The Codable documents, then the floor, which reports list last.
    public static let kinds = DocumentFormat.allCases.map(\.kind) + [kind]

    /// The per-filter counts are kept up to date by every write, as `packed` keeps them.
    public static var maintainedCounts: Set<MaintainedCount> { [.itemsPerFilter] }

    /// How the store's contents reach its directory.
    enum Persistence {
        /// `memory`: nothing while it runs; a binary dump at close (`+Dump`).
        case dumpAtClose
        /// `json`, `plist`: the whole document at every commit (`+Document`).
        case document(DocumentFormat)
    }

    static let dumpName = "items.dump"
    static let magic = Array("PBMEM002".utf8)

    let persistence: Persistence
    /// The dump or the document.
    let file: URL
    /// Slot `id` holds item `id`, or nil; slot 0 is never used.
    var slots: [Item?] = [nil]
    /// Held alone by every write to `slots`, and to read by a reader on another thread (`+Live`); the store's own
    /// reads, on the writing thread, do not take it.
    let itemsLock = ReadWriteLock()
    /// Bumped after every commit, for observers (`+Observation`).
    let commits = CommitSignal()
    var filterCounts = [Int](repeating: 0, count: 8)
    /// Per priority code (0 none, 1–3), the ids of its items in `ItemPageQuery` order, but for `unsortedIDs`;
    /// nil until sorted.
    var pageOrders: [[Int64]]?
    /// Items written since the page orders were last mended: the next page moves them to their place.
    var unsortedIDs: Set<Int64> = []
    /// The live titles, once `migrateToUniqueTitles` made them unique.
    var uniqueTitles: Set<String>?
    /// The league (`+Associations`): sports and teams in id order.
    var sports: [Sport] = []
    var teams: [Team] = []
    /// Slot `id` holds house `id`, or nil (`+Houses`).
    var houses: [House?] = [nil]
    /// The profile (`+Profile`): samples in time order, each naming its call stack in `stacks`, stored once.
    var samples: [StoredSample] = []
    var stacks: [[UInt64]] = []
    var stackIDs: [[UInt64]: Int32] = [:]
    /// Whether something changed that the store's file does not hold yet: `memory`'s dump at close, the document
    /// after a bulk load (whose inserts write nothing until `finishInserting`).
    var unsaved = false

    init(directory: URL, persistence: Persistence) throws {
        self.persistence = persistence
        switch persistence {
        case .dumpAtClose:
            file = directory.appendingPathComponent(Self.dumpName)
            if FileManager.default.fileExists(atPath: file.path) { try read(Data(contentsOf: file)) }
        case .document(let format):
            file = directory.appendingPathComponent(format.fileName)
            if FileManager.default.fileExists(atPath: file.path) {
                let document: Document
                do { document = try format.decode(Data(contentsOf: file)) } catch {
                    throw BenchError("\(file.path) cannot be decoded: \(error)")
                }
                try load(document)
            }
        }
        unsaved = !FileManager.default.fileExists(atPath: file.path)
    }

    public func close() throws {
        guard unsaved else { return }
        switch persistence {
        case .dumpAtClose: try FileSystem.writeAtomically(Data(encoded()), to: file)
        case .document(let format): try write(format)
        }
        unsaved = false
    }

    /// Ends a transaction: the document stores write the whole document; then observers are told.
    func commit() throws {
        if case .document(let format) = persistence, unsaved {
            try write(format)
            unsaved = false
        }
        commits.committed()
    }

    // MARK: Writes

    /// One batch of a bulk load: in the heap only. The load's end (`finishInserting`) commits it, as an app that
    /// imports into its model saves once, and as `orm` saves its context once.
    public func insert(_ batch: [Item]) throws {
        for item in batch {
            guard item.id > 0, item.id < Int64(UInt32.max) else { throw BenchError("\(name): item id \(item.id)") }
            if Int(item.id) < slots.count, slots[Int(item.id)] != nil {
                throw BenchError("\(name): item \(item.id) is already stored")
            }
        }
        try checkUniqueTitles(batch.map { ($0.id, $0.title) })
        itemsLock.writing {
            for item in batch {
                let id = Int(item.id)
                if id >= slots.count { slots.append(contentsOf: repeatElement(nil, count: id - slots.count + 1)) }
                slots[id] = item
                filterCounts[Int(ItemFilter(matching: item).code)] += 1
                uniqueTitles?.insert(item.title)
            }
        }
        wrote(batch.lazy.map(\.id))
    }

    public func insertDurably(_ item: Item) throws {
        try insert([item])
        try commit()
    }

    /// Sorts the page orders at the end of a bulk load, as `packed` builds its order index then, and commits the
    /// load.
    public func finishInserting() throws {
        if slots.count > 1 { _ = pageOrder(priorityCode: 0) }
        try commit()
    }

    public func update(_ updates: [ItemUpdate]) throws {
        for update in updates where slot(update.id) == nil {
            throw BenchError("\(name): no item \(update.id) to update")
        }
        try checkUniqueTitles(updates.map { ($0.id, $0.title) }, replacing: Set(updates.map(\.id)))
        itemsLock.writing {
            for update in updates {
                var item = slots[Int(update.id)]!
                filterCounts[Int(ItemFilter(matching: item).code)] -= 1
                uniqueTitles?.remove(item.title)
                update.apply(to: &item)
                filterCounts[Int(ItemFilter(matching: item).code)] += 1
                uniqueTitles?.insert(item.title)
                slots[Int(update.id)] = item
            }
        }
        wrote(updates.lazy.map(\.id))
        try commit()
    }

    public func delete(ids: [Int64]) throws {
        remove(ids: ids)
        try commit()
    }

    /// Takes items out of the heap, leaving the commit to the caller.
    func remove(ids: [Int64]) {
        itemsLock.writing {
            for id in ids {
                guard let item = slot(id) else { continue }
                filterCounts[Int(ItemFilter(matching: item).code)] -= 1
                uniqueTitles?.remove(item.title)
                slots[Int(id)] = nil
            }
        }
        wrote(ids)
    }

    private func wrote(_ ids: some Sequence<Int64>) {
        if pageOrders != nil { unsortedIDs.formUnion(ids) }
        unsaved = true
    }

    /// The store's name, for messages.
    var name: String {
        switch persistence {
        case .dumpAtClose: StoreKind.harnessFloorName
        case .document(let format): format.kind.name
        }
    }

    // MARK: Reads

    func slot(_ id: Int64) -> Item? {
        id > 0 && id < Int64(slots.count) ? slots[Int(id)] : nil
    }

    public func item(id: Int64) throws -> Item? { slot(id) }

    public func forEachItem(_ body: (Item) throws -> Void) throws {
        for case let item? in slots { try body(item) }
    }

    public func count(where filter: ItemFilter) throws -> Int { filterCounts[Int(filter.code)] }

    public func count(pricedIn range: PriceRange) throws -> Int {
        var count = 0
        for case let item? in slots where range.contains(item.price) { count += 1 }
        return count
    }

    public func page(_ query: ItemPageQuery) throws -> [Item] {
        let order = pageOrder(priorityCode: Int(ItemFilter.priorityCode(query.priority)))
        guard query.offset < order.count else { return [] }
        return order[query.offset..<min(order.count, query.offset + query.limit)].map { slots[Int($0)]! }
    }

    public func items(startingAt id: Int64, limit: Int) throws -> [Item] {
        var found: [Item] = []
        found.reserveCapacity(limit)
        var next = max(1, Int(clamping: id))
        while next < slots.count, found.count < limit {
            if let item = slots[next] { found.append(item) }
            next += 1
        }
        return found
    }

    /// The ids of one priority's items in page order: every priority's sorted the first time, and mended after
    /// writes: the written ids taken out, the live ones among them sorted, each one's place found by binary
    /// search, and the orders rebuilt around them: O(N) copying and O(k log N) comparisons for k written items.
    private func pageOrder(priorityCode: Int) -> [Int64] {
        guard var orders = pageOrders else {
            var items = [[Item]](repeating: [], count: 4)
            for case let item? in slots { items[Int(ItemFilter.priorityCode(item.priority))].append(item) }
            let sorted = items.map { $0.sorted(by: ItemPageQuery.areInIncreasingOrder).map(\.id) }
            pageOrders = sorted
            unsortedIDs = []
            return sorted[priorityCode]
        }
        if !unsortedIDs.isEmpty {
            var moved = [[Item]](repeating: [], count: 4)
            for id in unsortedIDs {
                if let item = slot(id) { moved[Int(ItemFilter.priorityCode(item.priority))].append(item) }
            }
            for code in 0..<4 {
                let kept = orders[code].filter { !unsortedIDs.contains($0) }
                let incoming = moved[code].sorted(by: ItemPageQuery.areInIncreasingOrder)
                var merged: [Int64] = []
                merged.reserveCapacity(kept.count + incoming.count)
                var copied = 0
                for item in incoming {
                    // The first kept item that does not sort before `item`: incoming is sorted, so places ascend.
                    var low = copied
                    var high = kept.count
                    while low < high {
                        let middle = (low + high) / 2
                        if ItemPageQuery.areInIncreasingOrder(slots[Int(kept[middle])]!, item) {
                            low = middle + 1
                        } else {
                            high = middle
                        }
                    }
                    merged.append(contentsOf: kept[copied..<low])
                    merged.append(item.id)
                    copied = low
                }
                merged.append(contentsOf: kept[copied...])
                orders[code] = merged
            }
            pageOrders = orders
            unsortedIDs = []
        }
        return orders[priorityCode]
    }
}
