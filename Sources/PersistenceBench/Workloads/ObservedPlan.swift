/// One commit of `observe`: a few items inserted, updated or deleted.
enum ObservedChange {
    case insert([Item])
    case update([ItemUpdate])
    case delete([Int64])

    /// Commits the change: an insert through `insertCommitted` (an object-graph store saves), updates and deletes
    /// as the store's own transactions.
    func apply(to store: any ObservableItemStore) throws {
        switch self {
        case .insert(let items): try store.insertCommitted(items)
        case .update(let updates): try store.update(updates)
        case .delete(let ids): try store.delete(ids: ids)
        }
    }
}

/// `observe`'s seeded commits and the query's result after each, computed from the generator before the timed
/// phase: the answers every store's observer must deliver.
///
/// The model keeps, for the observed priority only, each live item's sort key in page order, and the items that a
/// commit inserted or changed; any other item is the generator's.
struct ObservedPlan {
    struct Step {
        let change: ObservedChange
        let expected: ObservedResult
        /// Whether `expected` differs from the result before this commit.
        let changesResult: Bool
    }

    let initial: ObservedResult
    let steps: [Step]

    private struct SortKey: Comparable {
        let isInStock: Bool
        let title: String
        let id: Int64

        init(_ item: Item) {
            isInStock = item.isInStock
            title = item.title
            id = item.id
        }

        static func < (a: SortKey, b: SortKey) -> Bool {
            ItemPageQuery.areInIncreasingOrder((a.isInStock, a.title, a.id), (b.isInStock, b.title, b.id))
        }
    }

    private struct Model {
        let query: ObservedQuery
        let generator: ItemGenerator
        let scale: Int
        var keys: [SortKey] = []
        var changed: [Int64: Item] = [:]
        /// Items of other priorities deleted so far: not to be touched again.
        var deletedElsewhere: Set<Int64> = []

        func item(_ id: Int64) -> Item { changed[id] ?? generator.items(id...id)[0] }

        var result: ObservedResult {
            ObservedResult(items: keys.prefix(query.limit).map { item($0.id) }, count: keys.count)
        }

        func position(of key: SortKey) -> Int {
            var low = 0
            var high = keys.count
            while low < high {
                let middle = (low + high) / 2
                if keys[middle] < key { low = middle + 1 } else { high = middle }
            }
            return low
        }

        mutating func add(_ item: Item) {
            changed[item.id] = item
            let key = SortKey(item)
            keys.insert(key, at: position(of: key))
        }

        mutating func remove(_ id: Int64) {
            let key = SortKey(item(id))
            let index = position(of: key)
            precondition(index < keys.count && keys[index] == key, "the model lost item \(id)")
            keys.remove(at: index)
        }

        /// Up to `count` distinct ids from the page.
        func pageIDs(_ count: Int, using rng: inout SplitMix64) -> [Int64] {
            var ids: [Int64] = []
            let page = min(query.limit, keys.count)
            for _ in 0..<count where page > 0 {
                let id = keys[Int(rng.below(UInt64(page)))].id
                if !ids.contains(id) { ids.append(id) }
            }
            return ids
        }

        /// `count` distinct live ids of the fixture with another priority.
        func elsewhereIDs(_ count: Int, using rng: inout SplitMix64) -> [Int64] {
            var ids: [Int64] = []
            while ids.count < count {
                let id = 1 + Int64(rng.below(UInt64(scale)))
                guard !deletedElsewhere.contains(id), !ids.contains(id),
                    generator.items(id...id)[0].priority != query.priority
                else { continue }
                ids.append(id)
            }
            return ids
        }

        /// New items of `ids`: inside the query, each right after an item on the page (the same stock flag, its title
        /// and more) and added to the model; else of another priority, drawn from `elsewhere`.
        mutating func newItems(
            _ ids: ClosedRange<Int64>, inside: Bool, elsewhere: [Item.Priority?], using rng: inout SplitMix64
        ) -> [Item] {
            var items = generator.items(ids)
            for index in items.indices {
                guard inside else {
                    items[index].priority = elsewhere[Int(rng.below(UInt64(elsewhere.count)))]
                    continue
                }
                items[index].priority = query.priority
                let page = min(query.limit - 1, keys.count)
                if page > 0 {
                    let anchor = item(keys[Int(rng.below(UInt64(page)))].id)
                    items[index].isInStock = anchor.isInStock
                    items[index].title = anchor.title + " \(items[index].id)"
                }
                add(items[index])
            }
            return items
        }
    }

    init(scale: Int, seed: UInt64, query: ObservedQuery, commits: Int = ObserveWorkload.commits) {
        let generator = ItemGenerator(seed: seed)
        var model = Model(query: query, generator: generator, scale: scale)
        Batches.forEach(upTo: scale, size: 10_000) { ids in
            for item in generator.items(ids) where item.priority == query.priority { model.keys.append(SortKey(item)) }
        }
        model.keys.sort()
        initial = model.result
        var rng = SplitMix64(seed: seed, stream: .observedChanges, index: 0)
        var nextID = Int64(scale) + 1
        var previous = initial
        var steps: [Step] = []
        steps.reserveCapacity(commits)
        let elsewhere = Item.Priority.allCases.map(Optional.some).filter { $0 != query.priority } + [nil]
        for commit in 0..<commits {
            let kind = rng.below(3)
            let inside = rng.below(2) == 0
            let size = 1 + Int(rng.below(3))
            let change: ObservedChange
            switch kind {
            case 0:
                let ids = nextID...nextID + Int64(size) - 1
                nextID += Int64(size)
                change = .insert(model.newItems(ids, inside: inside, elsewhere: elsewhere, using: &rng))
            case 1:
                let ids = inside ? model.pageIDs(size, using: &rng) : model.elsewhereIDs(size, using: &rng)
                let updates = ids.enumerated().map { offset, id in
                    generator.update(id: id, revision: commit * 4 + offset)
                }
                for update in updates where inside {
                    var item = model.item(update.id)
                    model.remove(update.id)
                    update.apply(to: &item)
                    model.add(item)
                }
                change = .update(updates)
            default:
                let ids = inside ? model.pageIDs(size, using: &rng) : model.elsewhereIDs(size, using: &rng)
                for id in ids {
                    if inside {
                        model.remove(id)
                        model.changed[id] = nil
                    } else {
                        model.deletedElsewhere.insert(id)
                    }
                }
                change = .delete(ids)
            }
            let expected = model.result
            steps.append(Step(change: change, expected: expected, changesResult: expected != previous))
            previous = expected
        }
        self.steps = steps
    }
}
