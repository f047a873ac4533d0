import Foundation
import PersistenceBench

/// The floor's items: arrays of optional items indexed by id, counts kept per filter, page orders sorted once and
/// mended after writes.
extension MemoryItemStore: ItemStore {
    /// One batch of a bulk load: in the heap only.
    ///
    /// The load's end (`finishInserting`) commits it, as an app that imports into its model saves once, and as `orm`
    /// saves its context once.
    package func insert(_ batch: [Item]) throws {
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
            wrote(batch.lazy.map(\.id))
        }
    }

    package func insertDurably(_ item: Item) throws {
        try insert([item])
        try commit()
    }

    /// One commit of an import: the items, then the commit (the whole document, for `json` and `plist`).
    ///
    /// Readers see the items as soon as they are in the heap, as an app's interface sees its model: before the file
    /// holds them.
    package func insertCommitted(_ batch: [Item]) throws {
        try insert(batch)
        try commit()
    }

    /// Sorts the page orders at the end of a bulk load, as `packed` builds its order index then, and commits the
    /// load.
    package func finishInserting() throws {
        if slots.count > 1 { _ = pageOrder(priorityCode: 0) }
        try commit()
    }

    package func update(_ updates: [ItemUpdate]) throws {
        for update in updates where slot(update.id) == nil {
            throw BenchError("\(name): no item \(update.id) to update")
        }
        try checkUniqueTitles(updates.map { ($0.id, $0.title) }, replacing: Set(updates.map(\.id)))
        itemsLock.writing {
            for update in updates {
                // Checked above: every update names a live item.
                guard var item = slots[Int(update.id)] else { continue }
                filterCounts[Int(ItemFilter(matching: item).code)] -= 1
                uniqueTitles?.remove(item.title)
                update.apply(to: &item)
                filterCounts[Int(ItemFilter(matching: item).code)] += 1
                uniqueTitles?.insert(item.title)
                slots[Int(update.id)] = item
            }
            wrote(updates.lazy.map(\.id))
        }
        try commit()
    }

    package func delete(ids: [Int64]) throws {
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
            wrote(ids)
        }
    }

    /// Marks `ids` for the next page to mend, and the store unsaved: called inside the write's hold of `itemsLock`,
    /// which a reader's page holds too (`+Live`).
    func wrote(_ ids: some Sequence<Int64>) {
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

    package func item(id: Int64) throws -> Item? { slot(id) }

    package func forEachItem(_ body: (Item) throws -> Void) throws {
        for case let item? in slots { try body(item) }
    }

    package func count(where filter: ItemFilter) throws -> Int { filterCounts[Int(filter.code)] }

    package func count(pricedIn range: PriceRange) throws -> Int {
        var count = 0
        for case let item? in slots where range.contains(item.price) { count += 1 }
        return count
    }

    package func page(_ query: ItemPageQuery) throws -> [Item] {
        let order = pageOrder(priorityCode: Int(ItemFilter.priorityCode(query.priority)))
        guard query.offset < order.count else { return [] }
        return try order[query.offset..<min(order.count, query.offset + query.limit)].map { id in
            guard let item = slots[Int(id)] else {
                throw BenchError("\(name): the page order names a deleted item \(id)")
            }
            return item
        }
    }

    package func items(startingAt id: Int64, limit: Int) throws -> [Item] {
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
    func pageOrder(priorityCode: Int) -> [Int64] {
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
                        if let keptItem = slots[Int(kept[middle])],
                            ItemPageQuery.areInIncreasingOrder(keptItem, item)
                        {
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
