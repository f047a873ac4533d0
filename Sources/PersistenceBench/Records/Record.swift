import Foundation

/// A record of a `RecordShape`: its id (1...N) and one value per field, in the shape's order.
public struct Record: Equatable, Sendable {
    public var id: Int64
    public var values: [FieldValue]

    public init(id: Int64, values: [FieldValue]) {
        self.id = id
        self.values = values
    }
}

/// One value of a record.
///
/// Every store returns exactly these values; digests are computed from them.
public enum FieldValue: Hashable, Sendable {
    case integer(Int64)
    case double(Double)
    case bool(Bool)
    /// Whole milliseconds since 1970, so that every store round-trips it exactly.
    case date(Int64)
    case text(String)
    case blob([UInt8])

    /// Bytes of a text or a blob; 8 for a number or a date, 1 for a bool.
    package var byteCount: Int {
        switch self {
        case .integer, .double, .date: 8
        case .bool: 1
        case .text(let text): text.utf8.count
        case .blob(let bytes): bytes.count
        }
    }

    /// Whether this value sorts before `other` (of the same field): numbers by value, texts byte-wise (SQLite's
    /// `BINARY` collation), `false` before `true`.
    package func sorts(before other: FieldValue) -> Bool {
        switch (self, other) {
        case (.integer(let a), .integer(let b)), (.date(let a), .date(let b)): a < b
        case (.double(let a), .double(let b)): a < b
        case (.bool(let a), .bool(let b)): !a && b
        case (.text(let a), .text(let b)): a.utf8.lexicographicallyPrecedes(b.utf8)
        default: false
        }
    }
}

/// One field's new value in an `update`: the field is drawn from the seed per record.
public struct RecordUpdate: Equatable, Sendable {
    public var id: Int64
    public var field: Int
    public var value: FieldValue

    /// Applies the change to a record with the same id, as an object-graph store does in memory.
    package func apply(to record: inout Record) {
        precondition(record.id == id, "RecordUpdate for \(id) applied to record \(record.id)")
        record.values[field] = value
    }
}

/// One page of records: those whose filter field equals `filter`, ordered by the sort field then the id.
public struct RecordPageQuery: Equatable, Sendable {
    public var filter: FieldValue
    public var limit: Int
    public var offset: Int

    /// Whether a record of sort value and id `a` comes before one of `b` in the page's order: by value, then id.
    package static func areInIncreasingOrder(_ a: (sort: FieldValue, id: Int64), _ b: (sort: FieldValue, id: Int64))
        -> Bool
    {
        a.sort == b.sort ? a.id < b.id : a.sort.sorts(before: b.sort)
    }
}

/// Generates the records of a shape and a seed: record `id` is the same whatever order records are generated in,
/// and its field sizes are known without generating its bytes (`sizes(id:)`).
public struct RecordGenerator: Sendable {
    public let shape: RecordShape
    public let seed: UInt64

    public init(shape: RecordShape, seed: UInt64) {
        self.shape = shape
        self.seed = seed
    }

    /// The length of each text and blob field of record `id` (0 for the other fields).
    package func sizes(id: Int64) -> [Int] {
        var rng = SplitMix64(seed: seed, stream: .recordSizes, index: UInt64(id))
        return shape.fields.map { field in field.type.isSized ? Self.length(of: field, using: &rng) : 0 }
    }

    /// The byte count of record `id`'s payload field (`RecordShape.payloadIndex`), or 0 for a shape without one.
    package func payloadBytes(id: Int64) -> Int {
        shape.payloadIndex.map { sizes(id: id)[$0] } ?? 0
    }

    public func record(id: Int64) -> Record {
        precondition(id >= 1, "record ids start at 1")
        let sizes = sizes(id: id)
        var rng = SplitMix64(seed: seed, stream: .recordValues, index: UInt64(id))
        return Record(
            id: id,
            values: shape.fields.indices.map { index in
                Self.value(of: shape.fields[index], length: sizes[index], id: id, using: &rng)
            })
    }

    /// Records `range.lowerBound...range.upperBound`, in id order.
    public func records(_ range: ClosedRange<Int64>) -> [Record] { range.map(record(id:)) }

    /// The change `update` writes to record `id`: one field drawn uniformly, and its new value.
    public func update(id: Int64) -> RecordUpdate {
        var rng = SplitMix64(seed: seed, stream: .recordUpdates, index: UInt64(id))
        return update(id: id, using: &rng)
    }

    /// The change the `revision`th write of a crash check makes to record `id`: every write differs, so that a
    /// store that lost one or applied them out of order ends in another state.
    public func update(id: Int64, revision: Int) -> RecordUpdate {
        var rng = SplitMix64(seed: seed, stream: .crashTransactions, index: UInt64(revision) << 32 | UInt64(id))
        return update(id: id, using: &rng)
    }

    private func update(id: Int64, using rng: inout SplitMix64) -> RecordUpdate {
        let field = Int(rng.below(UInt64(shape.fields.count)))
        let length = shape.fields[field].type.isSized ? Self.length(of: shape.fields[field], using: &rng) : 0
        return RecordUpdate(
            id: id, field: field, value: Self.value(of: shape.fields[field], length: length, id: id, using: &rng))
    }

    /// `page`'s queries: `count` seeded filters (a value of the filter field's range) and offsets of whole pages
    /// among the first `PageWorkload.pagesDeep`.
    package func pageQueries(count: Int) -> [RecordPageQuery] {
        var rng = SplitMix64(seed: seed, stream: .queries, index: 0)
        let filter = shape.fields[shape.filterIndex]
        return (0..<count).map { _ in
            let value: FieldValue =
                filter.type == .bool
                ? .bool(rng.below(2) == 1)
                : .integer(Int64(filter.minimum) + Int64(rng.below(UInt64(filter.maximum - filter.minimum) + 1)))
            return RecordPageQuery(
                filter: value, limit: PageWorkload.pageSize,
                offset: Int(rng.below(UInt64(PageWorkload.pagesDeep))) * PageWorkload.pageSize)
        }
    }

    private static func length(of field: RecordField, using rng: inout SplitMix64) -> Int {
        let (low, high) = (field.minimum, field.maximum)
        guard high > low else { return low }
        switch field.sizes {
        case .uniform: return low + Int(rng.below(UInt64(high - low) + 1))
        case .logUniform:
            let drawn = Double(low) * exp(rng.unit() * log(Double(high) / Double(low)))
            return min(high, max(low, Int(drawn)))
        }
    }

    private static func value(of field: RecordField, length: Int, id: Int64, using rng: inout SplitMix64)
        -> FieldValue
    {
        switch field.type {
        case .integer:
            return .integer(Int64(field.minimum) + Int64(rng.below(UInt64(field.maximum - field.minimum) + 1)))
        case .double: return .double(Double(rng.below(10_000_001)) / 100)
        case .bool: return .bool(rng.below(2) == 1)
        case .date: return .date(ItemGenerator.epochMilliseconds + id * 1000 + Int64(rng.below(1000)))
        case .text: return .text(ItemGenerator.words(length: length, using: &rng))
        case .blob:
            return .blob(
                [UInt8](unsafeUninitializedCapacity: length) { buffer, initialized in
                    var offset = 0
                    while offset < length {
                        let word = rng.next()
                        for byte in 0..<min(8, length - offset) {
                            buffer[offset + byte] = UInt8(truncatingIfNeeded: word >> (8 * byte))
                        }
                        offset += 8
                    }
                    initialized = length
                })
        }
    }
}
