import Foundation

/// Generates the `Item` data set of a seed: item `id` is the same whatever order items are generated in.
///
/// Items are generated on demand, batch by batch, so that a 100M-item run never holds the data set in memory.
public struct ItemGenerator: Sendable {
    public let seed: UInt64

    /// The share of titles that copy an earlier item's title (the `unique-title` migration removes them).
    public static let duplicateTitleShare = 0.05
    /// 2020-01-01T00:00:00Z in milliseconds; item `id` was created about `id` seconds later.
    static let epochMilliseconds: Int64 = 1_577_836_800_000

    public init(seed: UInt64) { self.seed = seed }

    public func item(id: Int64) -> Item {
        precondition(id >= 1, "item ids start at 1")
        var rng = SplitMix64(seed: seed, stream: .item, index: UInt64(id))
        let title: String
        if id > 1 && rng.unit() < Self.duplicateTitleShare {
            title = baseTitle(id: 1 + Int64(rng.below(UInt64(id - 1))))
        } else {
            title = baseTitle(id: id)
        }
        let notes = Self.words(length: Int(rng.below(201)), using: &rng)
        let isInStock = rng.below(10) < 7
        let priorityRoll = rng.below(4)
        let priority = priorityRoll == 3 ? nil : Item.Priority(rawValue: Int(priorityRoll))
        let price = Double(rng.below(100_000)) / 100
        let milliseconds = Self.epochMilliseconds + id * 1000 + Int64(rng.below(1000))
        return Item(
            id: id, title: title, notes: notes, isInStock: isInStock, priority: priority, price: price,
            createdAt: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }

    /// Items `range.lowerBound...range.upperBound`, in id order.
    public func items(_ range: ClosedRange<Int64>) -> [Item] {
        range.map(item(id:))
    }

    /// The new values an `update` writes to item `id`.
    public func update(id: Int64) -> ItemUpdate {
        var rng = SplitMix64(seed: seed, stream: .update, index: UInt64(id))
        return Self.update(id: id, using: &rng)
    }

    /// The values the `revision`th write of a workload writes to item `id` (YCSB's UPDATE and READ-MODIFY-WRITE):
    /// every write differs, so that a store that applied writes out of order or lost one ends with another digest.
    public func update(id: Int64, revision: Int) -> ItemUpdate {
        var rng = SplitMix64(seed: seed, stream: .ycsbValues, index: UInt64(revision))
        return Self.update(id: id, using: &rng)
    }

    private static func update(id: Int64, using rng: inout SplitMix64) -> ItemUpdate {
        ItemUpdate(
            id: id, title: title(using: &rng), isInStock: rng.below(2) == 0, price: Double(rng.below(100_000)) / 100)
    }

    /// An item's own title, before duplicates are drawn: a word, then random letters and digits (8–40 chars).
    private func baseTitle(id: Int64) -> String {
        var rng = SplitMix64(seed: seed, stream: .title, index: UInt64(id))
        return Self.title(using: &rng)
    }

    private static func title(using rng: inout SplitMix64) -> String {
        let length = 8 + Int(rng.below(33))
        let word = vocabulary[Int(rng.below(UInt64(vocabulary.count)))]
        var bytes = [UInt8]()
        bytes.reserveCapacity(length)
        if word.utf8.count + 2 <= length {
            bytes.append(contentsOf: word.utf8)
            bytes.append(0x20)
        }
        while bytes.count < length {
            bytes.append(alphanumerics[Int(rng.below(UInt64(alphanumerics.count)))])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func words(length: Int, using rng: inout SplitMix64) -> String {
        var bytes = [UInt8]()
        bytes.reserveCapacity(length + 16)
        while bytes.count < length {
            if !bytes.isEmpty { bytes.append(0x20) }
            bytes.append(contentsOf: vocabulary[Int(rng.below(UInt64(vocabulary.count)))].utf8)
        }
        return String(decoding: bytes.prefix(length), as: UTF8.self)
    }

    private static let alphanumerics = Array("abcdefghijklmnopqrstuvwxyz0123456789".utf8)
    private static let vocabulary = [
        "Apple", "Basket", "Candle", "Drill", "Engine", "Fabric", "Guitar", "Hammer", "Ink", "Jacket", "Kettle",
        "Lamp", "Marker", "Needle", "Oven", "Pencil", "Quilt", "Radio", "Saw", "Table", "Umbrella", "Vase",
        "Wrench", "Yarn", "Zipper", "blue", "red", "green", "large", "small", "spare", "vintage", "new", "used",
        "steel", "wooden", "cotton", "glass", "for", "the", "kitchen", "garden", "office", "with", "and", "box",
        "set", "pack", "of", "two", "three", "bright", "soft", "heavy", "light", "quick", "order", "gift",
    ]
}
