import Foundation
import GRDB
import PersistenceBench

/// `Item` as a GRDB record with hand-written conformances: what a `@Table`-style macro generates.
///
/// Columns are read by index, in the order of `databaseSelection`, as generated code does.
struct ItemRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "item"

    enum Columns {
        static let id = Column("id")
        static let title = Column("title")
        static let notes = Column("notes")
        static let isInStock = Column("isInStock")
        static let priority = Column("priority")
        static let price = Column("price")
        static let createdAt = Column("createdAt")
    }

    static var databaseSelection: [any SQLSelectable] {
        [
            Columns.id, Columns.title, Columns.notes, Columns.isInStock, Columns.priority, Columns.price,
            Columns.createdAt,
        ]
    }

    var item: Item

    init(_ item: Item) { self.item = item }

    init(row: Row) throws {
        // The enum is read as its raw Int, as StructuredQueries' generated decoding does. Reading it through a
        // DatabaseValueConvertible conformance instead costs about a third of a scan here (Optional metadata
        // is instantiated for every row: measured with callgrind at 100k rows).
        item = Item(
            id: row[0], title: row[1], notes: row[2], isInStock: row[3],
            priority: (row[4] as Int?).flatMap(Item.Priority.init(rawValue:)), price: row[5],
            createdAt: Date(timeIntervalSince1970: row[6]))
    }

    func encode(to container: inout PersistenceContainer) throws {
        container[Columns.id] = item.id
        container[Columns.title] = item.title
        container[Columns.notes] = item.notes
        container[Columns.isInStock] = item.isInStock
        container[Columns.priority] = item.priority?.rawValue
        container[Columns.price] = item.price
        container[Columns.createdAt] = item.createdAt.timeIntervalSince1970
    }
}

/// `Item` as a Codable GRDB record: the conformances derived by the compiler, as many GRDB users write them.
struct CodableItemRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "item"

    var id: Int64
    var title: String
    var notes: String
    var isInStock: Bool
    var priority: Item.Priority?
    var price: Double
    var createdAt: Date

    init(_ item: Item) {
        id = item.id
        title = item.title
        notes = item.notes
        isInStock = item.isInStock
        priority = item.priority
        price = item.price
        createdAt = item.createdAt
    }

    var item: Item {
        Item(
            id: id, title: title, notes: notes, isInStock: isInStock, priority: priority, price: price,
            createdAt: createdAt)
    }

    // Dates as Unix seconds, the column type every SQLite store here uses (GRDB's default would be text).
    static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy {
        .timeIntervalSince1970
    }

    static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy {
        .timeIntervalSince1970
    }
}
