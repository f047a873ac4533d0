import Foundation
import GRDB
import GRDBSQLite
import PersistenceBench
import Synchronization

/// `grdb`'s items, in each flavor's idiom: records through the query interface (`grdb`, `grdb+codable`) or cached
/// statements (`grdb+statements`); a write is one `database.write`, a read one `database.read`.
extension GRDBItemStore: ItemStore {
    /// The item columns in `ItemRecord.databaseSelection`'s order, for the cached statements of `grdb+statements`.
    static let columns = "id, title, notes, isInStock, priority, price, createdAt"

    package func insert(_ batch: [Item]) throws {
        try database.write { db in
            for item in batch { try insert(item, in: db) }
        }
    }

    package func insertDurably(_ item: Item) throws {
        try database.write { db in try insert(item, in: db) }
    }

    private func insert(_ item: Item, in db: Database) throws {
        switch flavor {
        case .records:
            try ItemRecord(item).insert(db)
        case .codable:
            try CodableItemRecord(item).insert(db)
        case .statements:
            let statement = try db.cachedStatement(
                sql: "INSERT INTO item (\(Self.columns)) VALUES (?, ?, ?, ?, ?, ?, ?)")
            try statement.execute(arguments: [
                item.id, item.title, item.notes, item.isInStock, item.priority?.rawValue, item.price,
                item.createdAt.timeIntervalSince1970,
            ])
        }
    }

    package func item(id: Int64) throws -> Item? {
        try database.read { db in try item(id: id, in: db) }
    }

    /// One `read {}` for the batch, with GRDB's batch call: `fetchAll(db, keys:)` for the record flavors (one
    /// `WHERE id IN (…)` statement of the batch's keys), and for `grdb+statements` a cached statement of
    /// `KeyBatch.keysPerStatement` placeholders, as `sqlite` asks it.
    package func items(ids: [Int64]) throws -> [Item?] {
        let found = try database.read { db -> [Item] in
            switch flavor {
            case .records: return try ItemRecord.fetchAll(db, keys: ids).map(\.item)
            case .codable: return try CodableItemRecord.fetchAll(db, keys: ids).map(\.item)
            case .statements:
                let statement = try db.cachedStatement(
                    sql: "SELECT \(Self.columns) FROM item WHERE id IN (\(KeyBatch.placeholders))")
                var found: [Item] = []
                found.reserveCapacity(ids.count)
                for start in stride(from: 0, to: ids.count, by: KeyBatch.keysPerStatement) {
                    var keys: [(any DatabaseValueConvertible)?] = Array(
                        ids[start..<min(ids.count, start + KeyBatch.keysPerStatement)])
                    keys += Array(repeating: nil, count: KeyBatch.keysPerStatement - keys.count)
                    found += try ItemRecord.fetchAll(statement, arguments: StatementArguments(keys)).map(\.item)
                }
                return found
            }
        }
        return KeyBatch.inAskedOrder(ids, found: found)
    }

    /// One `read {}` for the batch, each item fetched as `item(id:)` fetches it.
    package func itemsKeyByKey(ids: [Int64]) throws -> [Item?] {
        try database.read { db in try ids.map { try item(id: $0, in: db) } }
    }

    func item(id: Int64, in db: Database) throws -> Item? {
        switch flavor {
        case .records: try ItemRecord.fetchOne(db, key: id)?.item
        case .codable: try CodableItemRecord.fetchOne(db, key: id)?.item
        case .statements:
            try ItemRecord.fetchOne(
                db.cachedStatement(sql: "SELECT \(Self.columns) FROM item WHERE id = ?"), arguments: [id])?.item
        }
    }

    package func forEachItem(_ body: (Item) throws -> Void) throws {
        try database.read { db in
            switch flavor {
            case .records:
                let cursor = try ItemRecord.order(ItemRecord.Columns.id).fetchCursor(db)
                while let record = try cursor.next() { try body(record.item) }
            case .statements:
                let cursor = try ItemRecord.fetchCursor(
                    db.cachedStatement(sql: "SELECT \(Self.columns) FROM item ORDER BY id"))
                while let record = try cursor.next() { try body(record.item) }
            case .codable:
                let cursor = try CodableItemRecord.order(Column("id")).fetchCursor(db)
                while let record = try cursor.next() { try body(record.item) }
            }
        }
    }

    package func count(where filter: ItemFilter) throws -> Int {
        try database.read { db in try Self.count(where: filter, flavor: flavor, in: db) }
    }

    /// `count(where:)` in a read of `db`, as `flavor` writes it.
    static func count(where filter: ItemFilter, flavor: Flavor, in db: Database) throws -> Int {
        switch flavor {
        case .records, .codable:
            try ItemRecord.filter(
                ItemRecord.Columns.priority == filter.priority?.rawValue
                    && ItemRecord.Columns.isInStock == filter.isInStock
            ).fetchCount(db)
        case .statements:
            try Int.fetchOne(
                db.cachedStatement(
                    sql: "SELECT COUNT(*) FROM item WHERE priority \(filter.priority == nil ? "IS NULL" : "= ?") "
                        + "AND isInStock = ?"),
                arguments: StatementArguments(
                    [filter.priority?.rawValue].compactMap { $0 } + [
                        filter.isInStock ? 1 : 0
                    ])) ?? 0
        }
    }

    package func count(pricedIn range: PriceRange) throws -> Int {
        try database.read { db in
            switch flavor {
            case .records, .codable:
                try ItemRecord.filter(ItemRecord.Columns.price >= range.lower && ItemRecord.Columns.price < range.upper)
                    .fetchCount(db)
            case .statements:
                try Int.fetchOne(
                    db.cachedStatement(sql: "SELECT COUNT(*) FROM item WHERE price >= ? AND price < ?"),
                    arguments: [range.lower, range.upper]) ?? 0
            }
        }
    }

    package func items(startingAt id: Int64, limit: Int) throws -> [Item] {
        try database.read { db in
            switch flavor {
            case .records:
                try ItemRecord.filter(ItemRecord.Columns.id >= id).order(ItemRecord.Columns.id).limit(limit)
                    .fetchAll(db).map(\.item)
            case .statements:
                try ItemRecord.fetchAll(
                    db.cachedStatement(sql: "SELECT \(Self.columns) FROM item WHERE id >= ? ORDER BY id LIMIT ?"),
                    arguments: [id, limit]
                ).map(\.item)
            case .codable:
                try CodableItemRecord.filter(Column("id") >= id).order(Column("id")).limit(limit)
                    .fetchAll(db).map(\.item)
            }
        }
    }

    package func page(_ query: ItemPageQuery) throws -> [Item] {
        try database.read { db in try Self.page(query, flavor: flavor, in: db) }
    }

    /// `page(_:)` in a read of `db`, as `flavor` writes it.
    static func page(_ query: ItemPageQuery, flavor: Flavor, in db: Database) throws -> [Item] {
        switch flavor {
        case .records:
            try ItemRecord.filter(ItemRecord.Columns.priority == query.priority?.rawValue)
                .order(ItemRecord.Columns.isInStock, ItemRecord.Columns.title, ItemRecord.Columns.id)
                .limit(query.limit, offset: query.offset)
                .fetchAll(db).map(\.item)
        case .statements:
            try ItemRecord.fetchAll(
                db.cachedStatement(
                    sql: "SELECT \(Self.columns) FROM item WHERE priority "
                        + "\(query.priority == nil ? "IS NULL" : "= ?") "
                        + "ORDER BY isInStock, title, id LIMIT ? OFFSET ?"),
                arguments: StatementArguments(
                    [query.priority?.rawValue].compactMap { $0 } + [query.limit, query.offset])
            ).map(\.item)
        case .codable:
            try CodableItemRecord.filter(Column("priority") == query.priority?.rawValue)
                .order(Column("isInStock"), Column("title"), Column("id"))
                .limit(query.limit, offset: query.offset)
                .fetchAll(db).map(\.item)
        }
    }

    // The query interface's updateAll and deleteOne decode no record, so both record flavors issue the
    // same statements; only `grdb+statements` goes through cached statements.
    package func update(_ updates: [ItemUpdate]) throws {
        try database.write { db in
            for update in updates {
                switch flavor {
                case .records, .codable:
                    try ItemRecord.filter(key: update.id).updateAll(
                        db, ItemRecord.Columns.title.set(to: update.title),
                        ItemRecord.Columns.isInStock.set(to: update.isInStock),
                        ItemRecord.Columns.price.set(to: update.price))
                case .statements:
                    let statement = try db.cachedStatement(
                        sql: "UPDATE item SET title = ?, isInStock = ?, price = ? WHERE id = ?")
                    try statement.execute(arguments: [update.title, update.isInStock, update.price, update.id])
                }
            }
        }
    }

    package func delete(ids: [Int64]) throws {
        try database.write { db in
            for id in ids {
                switch flavor {
                case .records, .codable:
                    _ = try ItemRecord.deleteOne(db, key: id)
                case .statements:
                    try db.cachedStatement(sql: "DELETE FROM item WHERE id = ?").execute(arguments: [id])
                }
            }
        }
    }
}
