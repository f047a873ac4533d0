import Foundation

// MARK: - The shape

/// The record a run stores when it is not `Item` (`run --shape`): its fields, which are indexed, and the field a
/// `page` filters on and the one it sorts by.
///
/// `docs/shapes.md` gives the JSON form and the presets.
///
/// Every store makes its schema from the shape (columns, an entity, a codec) and answers `insert`, `insert-each`,
/// `get`, `scan`, `update` and `page` over records of it (`RecordStore`); `RecordGenerator` fills it from the seed,
/// so that every store gets the same bytes.
public struct RecordShape: Codable, Equatable, Sendable {
    /// A preset's name, or a shape file's `name`: it names the fixtures and the run's results.
    public var name: String
    public var fields: [RecordField]
    /// The field a page filters on by equality: an integer (a value drawn from its range) or a bool.
    public var pageFilter: String
    /// The field a page sorts by, then the id: not a blob, and a text of at most `sortableTextLength` bytes.
    public var pageSort: String

    /// The longest text a page may sort by: LMDB's keys are at most 511 bytes, and an index key holds it whole.
    public static let sortableTextLength = 255

    package init(name: String, fields: [RecordField], pageFilter: String, pageSort: String) {
        self.name = name
        self.fields = fields
        self.pageFilter = pageFilter
        self.pageSort = pageSort
    }

    /// The position of the page's filter and sort fields in `fields` (`validate()` checks that both are fields).
    package var filterIndex: Int { fields.firstIndex { $0.name == pageFilter } ?? 0 }
    package var sortIndex: Int { fields.firstIndex { $0.name == pageSort } ?? 0 }

    /// The field whose size varies the most (the largest text or blob by its maximum), whose size a lookup's and a
    /// write's latency is broken down by (`SizeClasses`); nil for a shape of fixed-size fields and short texts.
    package var payloadIndex: Int? {
        let sized = fields.indices.filter { fields[$0].type.isSized && fields[$0].maximum > 1024 }
        return sized.max { fields[$0].maximum < fields[$1].maximum }
    }

    /// A record's expected size in bytes: each field's mean (a text's or a blob's mean length).
    package var expectedBytes: Double {
        fields.reduce(8) { total, field in
            guard field.type.isSized else { return total + (field.type == .bool ? 1 : 8) }
            let (low, high) = (Double(field.minimum), Double(field.maximum))
            guard high > low else { return total + low }
            return total + (field.sizes == .uniform ? (low + high) / 2 : (high - low) / log(high / low))
        }
    }

    /// The most bytes of records one bulk transaction holds: a batch of 10,000 1 MB attachments would be 10 GB.
    package static let batchBytes = 64.0 * 1_048_576

    /// Records per bulk transaction (`insert`, `update`, fixture loads) for a run's `batchSize`: fewer where that
    /// many records of this shape would exceed `batchBytes`.
    ///
    /// The same for every store.
    package func recordsPerBatch(_ batchSize: Int) -> Int {
        max(1, min(batchSize, Int(Self.batchBytes / expectedBytes)))
    }

    /// A name safe for a fixture's directory and a file: the preset's name, or a custom shape's name with a hash
    /// of its definition, so that two shape files with one name never share a fixture.
    package var fixtureName: String {
        if let preset = Self.presets.first(where: { $0.name == name }), preset == self { return "records-\(name)" }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        var digest = Digest()
        digest.add(String(decoding: (try? encoder.encode(self)) ?? Data(), as: UTF8.self))
        let safe = name.filter { $0.isLetter || $0.isNumber || $0 == "-" }
        return "records-\(safe.prefix(40))-\(String(digest.hash, radix: 16))"
    }
}

// MARK: - Fields

/// One field of a `RecordShape`.
public struct RecordField: Codable, Equatable, Sendable {
    public var name: String
    public var type: FieldType
    /// Whether stores with indexes keep one on this field alone (the page's filter and sort have one together).
    public var indexed: Bool
    /// Integers: the smallest value.
    ///
    /// Texts and blobs: the shortest length in bytes. Unused otherwise.
    public var minimum: Int
    /// Integers: the largest value.
    ///
    /// Texts and blobs: the longest length in bytes. Unused otherwise.
    public var maximum: Int
    /// How a text's or a blob's length is drawn between `minimum` and `maximum`.
    public var sizes: SizeDistribution

    package init(
        _ name: String, _ type: FieldType, indexed: Bool = false, minimum: Int = 0, maximum: Int = 0,
        sizes: SizeDistribution = .uniform
    ) {
        self.name = name
        self.type = type
        self.indexed = indexed
        self.minimum = minimum
        self.maximum = maximum
        self.sizes = sizes
    }
}

public enum FieldType: String, Codable, Sendable, CaseIterable {
    /// A 64-bit integer, uniform over its range.
    case integer
    /// A double with whole hundredths, uniform over 0–100,000.
    case double
    case bool
    /// A date in whole milliseconds, about one second after the previous record's.
    case date
    /// ASCII words, its length drawn from its size distribution.
    case text
    /// Bytes of the seed's randomness (nothing compresses them), its length drawn from its size distribution.
    case blob

    package var isSized: Bool { self == .text || self == .blob }
}

/// How a text's or a blob's length is drawn.
public enum SizeDistribution: String, Codable, Sendable, CaseIterable {
    /// Every length between the bounds equally likely.
    case uniform
    /// Every factor of the bounds' span equally likely: as many records of 10–100 KB as of 100 KB–1 MB.
    case logUniform = "log-uniform"
}

// MARK: - Size classes

/// The size classes of a shape's payload field (`RecordShape.payloadIndex`), for breaking a lookup's or a write's
/// latency down by size: the quartiles of the field's own length distribution, so that each class holds about a
/// quarter of the records and every class's percentiles rest on a like n.
///
/// For `attachment` (10 KB–1 MB, log-uniform) the classes split at 31.6 KB, 100 KB and 316 KB, where the old fixed
/// classes (≤ 10 KB, ≤ 100 KB, ≤ 1 MB) held half the records in one class. A field of one length has one class.
package struct SizeClasses: Equatable, Sendable {
    /// Each class's largest length in bytes, ascending; the last is the field's maximum.
    package let upperBounds: [Int]
    /// The field's shortest length: the first class's lower end.
    package let minimum: Int

    /// The classes of `shape`'s payload field, or nil for a shape without one.
    package init?(_ shape: RecordShape) {
        guard let index = shape.payloadIndex else { return nil }
        self.init(shape.fields[index])
    }

    package init(_ field: RecordField) {
        let (low, high) = (Double(field.minimum), Double(field.maximum))
        minimum = field.minimum
        guard high > low else {
            upperBounds = [field.maximum]
            return
        }
        let quartiles = [0.25, 0.5, 0.75].map { quantile -> Int in
            switch field.sizes {
            case .uniform: Int((low + quantile * (high - low)).rounded())
            case .logUniform: Int((low * exp(quantile * log(high / low))).rounded())
            }
        }
        var bounds: [Int] = []
        for bound in quartiles + [field.maximum] where bound > (bounds.last ?? field.minimum - 1) {
            bounds.append(bound)
        }
        upperBounds = bounds
    }

    /// The class of a payload of `bytes`: the first whose upper bound holds it.
    package func index(bytes: Int) -> Int { upperBounds.firstIndex { bytes <= $0 } ?? upperBounds.count - 1 }

    /// Every class's operation kind, smallest first.
    package func kinds(_ operation: String) -> [OperationKind] {
        upperBounds.indices.map { index in
            let low = index == 0 ? minimum : upperBounds[index - 1]
            let high = upperBounds[index]
            let range = low == high ? Self.label(high) : "\(Self.label(low))–\(Self.label(high))"
            return OperationKind(rawValue: "\(operation) \(range)")
        }
    }

    /// A length in decimal units, three significant digits (the shapes' bounds are decimal: 10,000 bytes is 10 KB).
    static func label(_ bytes: Int) -> String {
        let (value, unit): (Double, String) =
            switch bytes {
            case ..<1_000: (Double(bytes), "B")
            case ..<1_000_000: (Double(bytes) / 1e3, "KB")
            default: (Double(bytes) / 1e6, "MB")
            }
        let digits = value >= 100 || value == value.rounded() ? 0 : value >= 10 ? 1 : 2
        var text = String(format: "%.\(digits)f", value)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return "\(text) \(unit)"
    }
}

extension RecordShape {
    // MARK: - Presets and files

    /// `--shape NAME` for a preset, or a path to a JSON shape file; nil for `item`, the default (`Item`'s own
    /// workloads, every existing run as it was).
    ///
    /// - Throws: `BadInput` with one line naming the file, the field and the problem.
    public static func named(_ spec: String) throws -> RecordShape? {
        if spec == "item" { return nil }
        if let preset = presets.first(where: { $0.name == spec }) { return preset }
        guard spec.hasSuffix(".json") || spec.contains("/") else {
            throw BadInput(
                "unknown shape '\(spec)': a preset (item, \(presets.map(\.name).joined(separator: ", "))) or a "
                    + "JSON shape file (docs/shapes.md)")
        }
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: spec)) } catch {
            throw BadInput("shape file \(spec): cannot be read (\(FileSystem.cause(of: error)))")
        }
        do { return try parse(data) } catch let error as BenchError {
            throw BadInput("shape file \(spec): \(error)")
        }
    }

    /// A shape from its JSON form (`docs/shapes.md`), checked: every problem is a `BenchError` of one line naming
    /// the field.
    package static func parse(_ data: Data) throws -> RecordShape {
        guard let object = try? JSONSerialization.jsonObject(with: data), let root = object as? [String: Any] else {
            throw BenchError("not a JSON object")
        }
        guard let name = root["name"] as? String, !name.isEmpty else { throw BenchError("'name': a string is needed") }
        guard let list = root["fields"] as? [[String: Any]], !list.isEmpty else {
            throw BenchError("'fields': a list of at least one field is needed")
        }
        let fields = try list.enumerated().map { position, entry in try RecordField(entry, position: position) }
        guard let page = root["page"] as? [String: Any], let filter = page["filter"] as? String,
            let sort = page["sort"] as? String
        else { throw BenchError("'page': an object with the names of a 'filter' and a 'sort' field is needed") }
        let unknown = Set(root.keys).subtracting(["name", "fields", "page"])
        if let key = unknown.sorted().first { throw BenchError("unknown key '\(key)' (name, fields, page)") }
        let shape = RecordShape(name: name, fields: fields, pageFilter: filter, pageSort: sort)
        try shape.validate()
        return shape
    }

    /// Checks what a shape file can get wrong beyond its syntax.
    package func validate() throws {
        var seen = Set<String>()
        for field in fields {
            guard field.name.range(of: "^[A-Za-z][A-Za-z0-9_]{0,62}$", options: .regularExpression) != nil else {
                throw BenchError("field '\(field.name)': a name is a letter, then letters, digits or _ (at most 63)")
            }
            guard field.name.lowercased() != "id" else {
                throw BenchError("field 'id': every record has an id already")
            }
            guard seen.insert(field.name.lowercased()).inserted else {
                throw BenchError("field '\(field.name)': named twice")
            }
            if field.type == .integer || field.type.isSized {
                guard field.minimum <= field.maximum else {
                    throw BenchError(
                        "field '\(field.name)': 'max' (\(field.maximum)) is below 'min' (\(field.minimum))")
                }
            }
            if field.type.isSized {
                guard field.minimum >= 0, field.maximum <= 64 << 20 else {
                    throw BenchError("field '\(field.name)': a length is 0 to 64 MiB (67108864 bytes)")
                }
                if field.sizes == .logUniform, field.minimum < 1 {
                    throw BenchError("field '\(field.name)': a log-uniform length needs 'min' of at least 1")
                }
            }
            if field.type == .blob, field.indexed {
                throw BenchError("field '\(field.name)': a blob cannot be indexed")
            }
        }
        guard let filter = fields.first(where: { $0.name == pageFilter }) else {
            throw BenchError("page: filter '\(pageFilter)' is not a field")
        }
        guard filter.type == .integer || filter.type == .bool else {
            throw BenchError(
                "page: filter '\(pageFilter)' is a \(filter.type.rawValue); it must be an integer or a bool")
        }
        guard let sort = fields.first(where: { $0.name == pageSort }) else {
            throw BenchError("page: sort '\(pageSort)' is not a field")
        }
        guard sort.type != .blob, sort.type != .text || sort.maximum <= Self.sortableTextLength else {
            throw BenchError(
                "page: sort '\(pageSort)' must not be a blob, nor a text longer than \(Self.sortableTextLength) bytes")
        }
    }
}

extension RecordField {
    fileprivate init(_ entry: [String: Any], position: Int) throws {
        guard let name = entry["name"] as? String else {
            throw BenchError("field \(position + 1): 'name' must be a string")
        }
        guard let typeName = entry["type"] as? String, let type = FieldType(rawValue: typeName) else {
            throw BenchError(
                "field '\(name)': 'type' must be one of \(FieldType.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let allowed: Set<String> =
            switch type {
            case .integer: ["name", "type", "indexed", "min", "max"]
            case .text, .blob: ["name", "type", "indexed", "min", "max", "distribution"]
            case .double, .bool, .date: ["name", "type", "indexed"]
            }
        if let key = Set(entry.keys).subtracting(allowed).sorted().first {
            throw BenchError(
                "field '\(name)': '\(key)' does not apply to a \(type.rawValue) (\(allowed.sorted().joined(separator: ", ")))"
            )
        }
        func integer(_ key: String, _ fallback: Int) throws -> Int {
            guard let value = entry[key] else { return fallback }
            guard let number = value as? NSNumber, !number.isBoolean,
                let exact = Int(exactly: number.doubleValue)
            else { throw BenchError("field '\(name)': '\(key)' must be a whole number") }
            return exact
        }
        let indexed: Bool
        switch entry["indexed"] {
        case nil: indexed = false
        case let flag as NSNumber where flag.isBoolean: indexed = flag.boolValue
        default: throw BenchError("field '\(name)': 'indexed' must be true or false")
        }
        var sizes = SizeDistribution.uniform
        if let value = entry["distribution"] {
            guard let text = value as? String, let distribution = SizeDistribution(rawValue: text) else {
                throw BenchError("field '\(name)': 'distribution' must be uniform or log-uniform")
            }
            sizes = distribution
        }
        let defaults = type == .integer ? (0, 1_000_000) : (8, 40)
        self.init(
            name, type, indexed: indexed, minimum: try integer("min", defaults.0),
            maximum: try integer("max", defaults.1),
            sizes: sizes)
    }
}

extension RecordShape {
    /// The presets `--shape` names besides `item`.
    public static let presets: [RecordShape] = [wide, document, attachment, event]

    /// 40 mixed columns: a category and a name that a page filters and sorts on, 11 more integers, 10 doubles,
    /// 5 bools, 4 dates and 8 short texts.
    package static let wide = RecordShape(
        name: "wide",
        fields: [
            RecordField("category", .integer, indexed: true, minimum: 0, maximum: 9),
            RecordField("name", .text, minimum: 8, maximum: 40),
        ] + (1...11).map { RecordField("int\($0)", .integer, minimum: 0, maximum: 1_000_000) }
            + (1...10).map { RecordField("real\($0)", .double) } + (1...5).map { RecordField("flag\($0)", .bool) }
            + (1...4).map { RecordField("date\($0)", .date) }
            + (1...8).map { RecordField("text\($0)", .text, minimum: 4, maximum: 32) },
        pageFilter: "category", pageSort: "name")

    /// A note: a title, a folder, a modification date and a body of 2–50 KB of text (log-uniform).
    package static let document = RecordShape(
        name: "document",
        fields: [
            RecordField("title", .text, minimum: 10, maximum: 80),
            RecordField("folder", .integer, minimum: 0, maximum: 19),
            RecordField("modifiedAt", .date),
            RecordField("body", .text, minimum: 2_000, maximum: 50_000, sizes: .logUniform),
        ],
        pageFilter: "folder", pageSort: "title")

    /// A photo or a file: a name, a kind, a date, a byte count and its data of 10 KB–1 MB (log-uniform).
    package static let attachment = RecordShape(
        name: "attachment",
        fields: [
            RecordField("name", .text, minimum: 8, maximum: 40),
            RecordField("kind", .integer, minimum: 0, maximum: 4),
            RecordField("createdAt", .date),
            RecordField("data", .blob, minimum: 10_000, maximum: 1_000_000, sizes: .logUniform),
        ],
        pageFilter: "kind", pageSort: "name")

    /// A log or analytics event: three small integers and a timestamp.
    package static let event = RecordShape(
        name: "event",
        fields: [
            RecordField("kind", .integer, minimum: 0, maximum: 15),
            RecordField("source", .integer, minimum: 0, maximum: 255),
            RecordField("value", .integer, minimum: 0, maximum: 65_535),
            RecordField("timestamp", .date),
        ],
        pageFilter: "kind", pageSort: "timestamp")
}

extension NSNumber {
    /// Whether JSON gave `true` or `false` rather than a number (Foundation keeps both as numbers; a boolean's
    /// Objective-C type is `c` on every platform).
    fileprivate var isBoolean: Bool { String(cString: objCType) == "c" }
}
