import Foundation

/// The CRUD workhorse: a to-do or shop item, as in the SwiftData and SQLiteData examples.
///
/// Every store returns exactly these values; digests are computed from them. Codable, as an app's model is: the
/// `json` and `plist` stores encode these values as they are.
public struct Item: Equatable, Hashable, Sendable, Codable {
    /// How urgent an item is.
    ///
    /// Optional on `Item`: about a quarter of items have none.
    ///
    /// SwiftData cannot filter on such an enum; the `page` workload does.
    public enum Priority: Int, CaseIterable, Sendable, Codable {
        case low = 0, medium = 1, high = 2
    }

    /// Primary key, 1...N for a data set of N items.
    public var id: Int64
    /// 8–40 ASCII characters; about 5% of titles repeat an earlier one by construction.
    public var title: String
    /// 0–200 ASCII characters.
    public var notes: String
    public var isInStock: Bool
    public var priority: Priority?
    /// A price with whole cents (`Double(cents) / 100`).
    public var price: Double
    /// Whole milliseconds since 1970, so that every store round-trips it exactly.
    public var createdAt: Date

    public init(
        id: Int64, title: String, notes: String, isInStock: Bool, priority: Priority?, price: Double,
        createdAt: Date
    ) {
        self.id = id
        self.title = title
        self.notes = notes
        self.isInStock = isInStock
        self.priority = priority
        self.price = price
        self.createdAt = createdAt
    }
}

/// The fields an `update` sets on one item.
///
/// Values come from the seed, so every store writes the same.
public struct ItemUpdate: Equatable, Sendable {
    public var id: Int64
    public var title: String
    public var isInStock: Bool
    public var price: Double

    public init(id: Int64, title: String, isInStock: Bool, price: Double) {
        self.id = id
        self.title = title
        self.isInStock = isInStock
        self.price = price
    }

    /// Applies the update to an item with the same id, as an object-graph store does in memory.
    public func apply(to item: inout Item) {
        precondition(item.id == id, "ItemUpdate for \(id) applied to item \(item.id)")
        item.title = title
        item.isInStock = isInStock
        item.price = price
    }
}

/// An indexed predicate: `priority IS ? AND isInStock = ?` (a nil priority matches items without one).
public struct ItemFilter: Equatable, Sendable {
    public var priority: Item.Priority?
    public var isInStock: Bool

    public init(priority: Item.Priority?, isInStock: Bool) {
        self.priority = priority
        self.isInStock = isInStock
    }

    /// The filter `item` matches.
    @inlinable
    public init(matching item: Item) {
        self.init(priority: item.priority, isInStock: item.isInStock)
    }

    public func matches(_ item: Item) -> Bool {
        item.priority == priority && item.isInStock == isInStock
    }

    /// The filter as one byte, the form binary stores keep an item's stock and priority in: bit 0 `isInStock`,
    /// bits 1–2 `priorityCode`.
    ///
    /// Its value (0–7) numbers the eight filters.
    @inlinable
    public var code: UInt8 { Self.priorityCode(priority) << 1 | (isInStock ? 1 : 0) }

    /// The filter of a `code`; nil when bits above the three used are set.
    @inlinable
    public init?(code: UInt8) {
        guard code & ~0b111 == 0 else { return nil }
        self.init(priority: Self.priority(code: code >> 1), isInStock: code & 1 != 0)
    }

    /// An optional priority as a small integer: 0 none, 1 low, 2 medium, 3 high.
    @inlinable
    public static func priorityCode(_ priority: Item.Priority?) -> UInt8 {
        priority.map { UInt8($0.rawValue) + 1 } ?? 0
    }

    /// The priority a `priorityCode` stands for: nil for 0 (and for codes above 3).
    @inlinable
    public static func priority(code: UInt8) -> Item.Priority? {
        code == 0 ? nil : Item.Priority(rawValue: Int(code) - 1)
    }

    /// All eight combinations, in a fixed order.
    public static let all: [ItemFilter] = [nil, .low, .medium, .high].flatMap { priority in
        [false, true].map { ItemFilter(priority: priority, isInStock: $0) }
    }
}

/// A half-open price range, `lower <= price < upper`: the predicate of `count-range`, which no store answers from
/// an index or a counter.
public struct PriceRange: Equatable, Sendable {
    public var lower: Double
    public var upper: Double

    public init(lower: Double, upper: Double) {
        self.lower = lower
        self.upper = upper
    }

    @inlinable
    public func contains(_ price: Double) -> Bool { price >= lower && price < upper }
}

/// One page of items with the given `priority`, ordered by `isInStock`, then `title`, then `id`.
///
/// Sorting by a Bool and filtering on an enum are two things SwiftData's queries cannot express.
public struct ItemPageQuery: Equatable, Sendable {
    /// The priority to match; nil matches items without one.
    public var priority: Item.Priority?
    public var limit: Int
    public var offset: Int

    public init(priority: Item.Priority?, limit: Int, offset: Int) {
        self.priority = priority
        self.limit = limit
        self.offset = offset
    }

    /// The order every store must return: false before true, then byte-wise title, then id.
    public static func areInIncreasingOrder(_ a: Item, _ b: Item) -> Bool {
        areInIncreasingOrder((a.isInStock, a.title, a.id), (b.isInStock, b.title, b.id))
    }

    /// The same order on the three fields it reads.
    static func areInIncreasingOrder(
        _ a: (isInStock: Bool, title: String, id: Int64), _ b: (isInStock: Bool, title: String, id: Int64)
    ) -> Bool {
        if a.isInStock != b.isInStock { return !a.isInStock }
        if a.title != b.title { return a.title.utf8.lexicographicallyPrecedes(b.title.utf8) }
        return a.id < b.id
    }
}
