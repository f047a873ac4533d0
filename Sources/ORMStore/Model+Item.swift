import Foundation
import PersistenceBench

/// The model classes, as a SwiftData app declares them with `@Model`: in a namespace of their own, so that
/// `Item`, `Sport`, … stay the core's record types in this target.
enum Model {}

extension Model {
    /// The `Item` model, as a SwiftData user declares it (`@Model final class Item` with `@Attribute(.unique)
    /// var id` and an `#Index` for the list query).
    ///
    /// Table `ZITEM`.
    ///
    /// `priority` is stored as its raw value, as SwiftData users store enums they filter on.
    final class Item: ManagedObject, PersistentModel {
        static let id = Attribute<Item, Int64>(0, "id", \.id)
        static let title = Attribute<Item, String>(1, "title", \.title)
        static let notes = Attribute<Item, String>(2, "notes", \.notes)
        static let isInStock = Attribute<Item, Bool>(3, "isInStock", \.isInStock)
        static let priority = Attribute<Item, Int64?>(4, "priority", \.priority)
        static let price = Attribute<Item, Double>(5, "price", \.price)
        static let createdAt = Attribute<Item, Date>(6, "createdAt", \.createdAt)

        static let entityDescription = EntityDescription(
            name: "Item",
            attributes: [
                id.description, title.description, notes.description, isInStock.description, priority.description,
                price.description, createdAt.description,
            ],
            uniqueAttributes: ["id"],
            indexes: [(name: "byPriorityStockTitleID", attributes: ["priority", "isInStock", "title", "id"])])

        var id: Int64 {
            get { value(of: Self.id) }
            set { setValue(newValue, for: Self.id) }
        }
        var title: String {
            get { value(of: Self.title) }
            set { setValue(newValue, for: Self.title) }
        }
        var notes: String {
            get { value(of: Self.notes) }
            set { setValue(newValue, for: Self.notes) }
        }
        var isInStock: Bool {
            get { value(of: Self.isInStock) }
            set { setValue(newValue, for: Self.isInStock) }
        }
        var priority: Int64? {
            get { value(of: Self.priority) }
            set { setValue(newValue, for: Self.priority) }
        }
        var price: Double {
            get { value(of: Self.price) }
            set { setValue(newValue, for: Self.price) }
        }
        var createdAt: Date {
            get { value(of: Self.createdAt) }
            set { setValue(newValue, for: Self.createdAt) }
        }
    }
}

extension Model.Item {
    /// Inserts an object holding `value`'s attributes into `context`.
    convenience init(_ value: PersistenceBench.Item, context: ModelContext) {
        self.init(context: context)
        id = value.id
        title = value.title
        notes = value.notes
        isInStock = value.isInStock
        priority = value.priority.map { Int64($0.rawValue) }
        price = value.price
        createdAt = value.createdAt
    }

    /// The object's attributes as the value every store returns (firing the fault if needed).
    var value: PersistenceBench.Item {
        PersistenceBench.Item(
            id: id, title: title, notes: notes, isInStock: isInStock,
            priority: priority.flatMap { PersistenceBench.Item.Priority(rawValue: Int($0)) }, price: price,
            createdAt: createdAt)
    }
}
