import Foundation
import PersistenceBench
import SQLiteSupport

/// `sqlite`'s items: statements prepared once at open (`SQLiteItemStore.swift`), stepped and reset per call; a
/// bulk write is one transaction per batch, a batch of lookups one `IN` statement per 100 keys in one read
/// transaction; `sqlite+txn` runs every read call in a read transaction of its own (`reading`).
extension SQLiteItemStore: ItemStore {
    package func insert(_ batch: [Item]) throws {
        try connection.transaction {
            for item in batch { try insertRow(item) }
        }
    }

    package func insertDurably(_ item: Item) throws {
        try connection.transaction { try insertRow(item) }
    }

    private func insertRow(_ item: Item) throws {
        let statement = insertStatement
        statement.bind(item.id, at: 1)
        statement.bind(item.isInStock, at: 4)
        if let priority = item.priority {
            statement.bind(Int64(priority.rawValue), at: 5)
        } else {
            statement.bindNull(at: 5)
        }
        statement.bind(item.price, at: 6)
        statement.bind(item.createdAt.timeIntervalSince1970, at: 7)
        try statement.withText(item.title, at: 2) {
            try statement.withText(item.notes, at: 3) {
                defer { statement.reset() }
                _ = try statement.step()
            }
        }
    }

    package func item(id: Int64) throws -> Item? {
        try reading { try lookUp(id) }
    }

    /// One read transaction, one step through `selectByIDs` per `KeyBatch.keysPerStatement` keys.
    package func items(ids: [Int64]) throws -> [Item?] {
        let found = try connection.readTransaction {
            var found: [Item] = []
            found.reserveCapacity(ids.count)
            for start in stride(from: 0, to: ids.count, by: KeyBatch.keysPerStatement) {
                let chunk = ids[start..<min(ids.count, start + KeyBatch.keysPerStatement)]
                for (offset, id) in chunk.enumerated() { selectByIDs.bind(id, at: Int32(offset + 1)) }
                for offset in chunk.count..<KeyBatch.keysPerStatement { selectByIDs.bindNull(at: Int32(offset + 1)) }
                defer { selectByIDs.reset() }
                while try selectByIDs.step() { found.append(Self.item(from: selectByIDs)) }
            }
            return found
        }
        return KeyBatch.inAskedOrder(ids, found: found)
    }

    package func itemsKeyByKey(ids: [Int64]) throws -> [Item?] {
        try connection.readTransaction { try ids.map(lookUp) }
    }

    func lookUp(_ id: Int64) throws -> Item? {
        selectByID.bind(id, at: 1)
        defer { selectByID.reset() }
        return try selectByID.step() ? Self.item(from: selectByID) : nil
    }

    package func forEachItem(_ body: (Item) throws -> Void) throws {
        try reading {
            defer { selectAll.reset() }
            while try selectAll.step() { try body(Self.item(from: selectAll)) }
        }
    }

    package func count(where filter: ItemFilter) throws -> Int {
        try reading { try count(filter) }
    }

    private func count(_ filter: ItemFilter) throws -> Int {
        let statement: SQLiteStatement
        if let priority = filter.priority {
            statement = countWithPriority
            statement.bind(Int64(priority.rawValue), at: 1)
            statement.bind(filter.isInStock, at: 2)
        } else {
            statement = countWithoutPriority
            statement.bind(filter.isInStock, at: 1)
        }
        defer { statement.reset() }
        guard try statement.step() else { return 0 }
        return Int(statement.int64(at: 0))
    }

    package func count(pricedIn range: PriceRange) throws -> Int {
        try reading { try count(range) }
    }

    private func count(_ range: PriceRange) throws -> Int {
        countPriced.bind(range.lower, at: 1)
        countPriced.bind(range.upper, at: 2)
        defer { countPriced.reset() }
        guard try countPriced.step() else { return 0 }
        return Int(countPriced.int64(at: 0))
    }

    package func page(_ query: ItemPageQuery) throws -> [Item] {
        try reading { try rows(of: query) }
    }

    private func rows(of query: ItemPageQuery) throws -> [Item] {
        let statement: SQLiteStatement
        var index: Int32 = 1
        if let priority = query.priority {
            statement = pageWithPriority
            statement.bind(Int64(priority.rawValue), at: 1)
            index = 2
        } else {
            statement = pageWithoutPriority
        }
        statement.bind(Int64(query.limit), at: index)
        statement.bind(Int64(query.offset), at: index + 1)
        defer { statement.reset() }
        var items: [Item] = []
        items.reserveCapacity(query.limit)
        while try statement.step() { items.append(Self.item(from: statement)) }
        return items
    }

    package func items(startingAt id: Int64, limit: Int) throws -> [Item] {
        try reading {
            selectRange.bind(id, at: 1)
            selectRange.bind(Int64(limit), at: 2)
            defer { selectRange.reset() }
            var items: [Item] = []
            items.reserveCapacity(limit)
            while try selectRange.step() { items.append(Self.item(from: selectRange)) }
            return items
        }
    }

    package func update(_ updates: [ItemUpdate]) throws {
        let statement = updateStatement
        try connection.transaction {
            for update in updates {
                statement.bind(update.isInStock, at: 2)
                statement.bind(update.price, at: 3)
                statement.bind(update.id, at: 4)
                try statement.withText(update.title, at: 1) {
                    defer { statement.reset() }
                    _ = try statement.step()
                }
            }
        }
    }

    package func delete(ids: [Int64]) throws {
        let statement = deleteStatement
        try connection.transaction {
            for id in ids {
                statement.bind(id, at: 1)
                defer { statement.reset() }
                _ = try statement.step()
            }
        }
    }
}
