/// A condition on a model's attributes that compiles to SQL, as SwiftData's `#Predicate` and Core Data's
/// `NSPredicate` compile to a `WHERE` clause: `Item.priority == nil && Item.isInStock == true`.
package struct FetchPredicate<Root: ManagedObject>: Sendable {
    /// The condition over the fetch's table alias `t0`, with `?` for each binding.
    package let sql: String
    package let bindings: [AttributeValue]

    init(sql: String, bindings: [AttributeValue]) {
        self.sql = sql
        self.bindings = bindings
    }

    /// The attribute named `key` equals `value`, as Core Data's `NSPredicate(format: "%K == %@", key, value)`: for
    /// attributes named at run time.
    package init(key: String, equals value: AttributeValue) {
        self.init(sql: "\(Entity.columnSQL(attribute: key)) = ?", bindings: [value])
    }

    /// The attribute named `key` is one of `values`, bound as `Attribute.isIn` binds them.
    package init(key: String, in values: [AttributeValue]) {
        self.init(
            sql: "\(Entity.columnSQL(attribute: key)) IN (SELECT value FROM json_each(?))",
            bindings: [.text(jsonArray(values))])
    }

    package static func && (lhs: Self, rhs: Self) -> Self {
        Self(sql: "(\(lhs.sql) AND \(rhs.sql))", bindings: lhs.bindings + rhs.bindings)
    }

    package static func || (lhs: Self, rhs: Self) -> Self {
        Self(sql: "(\(lhs.sql) OR \(rhs.sql))", bindings: lhs.bindings + rhs.bindings)
    }

    package static prefix func ! (operand: Self) -> Self {
        Self(sql: "(NOT \(operand.sql))", bindings: operand.bindings)
    }
}

extension Attribute {
    var columnSQL: String { Entity.columnSQL(attribute: name) }

    func compare(_ operation: String, _ value: Value) -> FetchPredicate<Root> {
        FetchPredicate(sql: "\(columnSQL) \(operation) ?", bindings: [value.stored])
    }

    /// Equal; comparing with nil is `IS NULL`.
    package static func == (lhs: Self, rhs: Value) -> FetchPredicate<Root> {
        if case .null = rhs.stored { return FetchPredicate(sql: "\(lhs.columnSQL) IS NULL", bindings: []) }
        return lhs.compare("=", rhs)
    }

    package static func != (lhs: Self, rhs: Value) -> FetchPredicate<Root> {
        if case .null = rhs.stored { return FetchPredicate(sql: "\(lhs.columnSQL) IS NOT NULL", bindings: []) }
        return lhs.compare("!=", rhs)
    }

    package static func < (lhs: Self, rhs: Value) -> FetchPredicate<Root> { lhs.compare("<", rhs) }
    package static func <= (lhs: Self, rhs: Value) -> FetchPredicate<Root> { lhs.compare("<=", rhs) }
    package static func > (lhs: Self, rhs: Value) -> FetchPredicate<Root> { lhs.compare(">", rhs) }
    package static func >= (lhs: Self, rhs: Value) -> FetchPredicate<Root> { lhs.compare(">=", rhs) }

    /// The attribute is one of `values` (`ids.contains($0.id)`): any number of values, bound as one JSON array
    /// that SQLite's `json_each` unpacks, as Core Data binds a long `IN` list as one array (`_Z_intarray`).
    package func isIn(_ values: [Value]) -> FetchPredicate<Root> {
        FetchPredicate(
            sql: "\(columnSQL) IN (SELECT value FROM json_each(?))", bindings: [.text(jsonArray(values.map(\.stored)))])
    }
}

/// `values` as a JSON array.
func jsonArray(_ values: [AttributeValue]) -> String {
    var json = "["
    for (position, value) in values.enumerated() {
        if position > 0 { json += "," }
        switch value {
        case .null: json += "null"
        case .integer(let integer): json += String(integer)
        case .real(let real): json += real.isFinite ? "\(real)" : "null"
        // JSON has no bytes, and no fetch here filters on a binary attribute.
        case .blob: json += "null"
        case .text(let text):
            json += "\""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": json += "\\\""
                case "\\": json += "\\\\"
                case _ where scalar.value < 0x20:
                    let hex = String(scalar.value, radix: 16)
                    json += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                default: json.unicodeScalars.append(scalar)
                }
            }
            json += "\""
        }
    }
    return json + "]"
}

/// One sort key of a fetch: an attribute, ascending or descending.
///
/// Strings sort byte-wise (SQLite's BINARY).
package struct FetchSortDescriptor<Root: ManagedObject>: Sendable {
    let sql: String

    package init<Value>(_ attribute: Attribute<Root, Value>, ascending: Bool = true) {
        sql = attribute.columnSQL + (ascending ? "" : " DESC")
    }

    /// A sort by an attribute named at run time, as Core Data's `NSSortDescriptor(key:ascending:)`.
    package init(key: String, ascending: Bool = true) {
        sql = Entity.columnSQL(attribute: key) + (ascending ? "" : " DESC")
    }
}

/// What to fetch: SwiftData's `FetchDescriptor`, Core Data's `NSFetchRequest`.
package struct FetchDescriptor<Model: ManagedObject>: Sendable {
    package var predicate: FetchPredicate<Model>?
    package var sortBy: [FetchSortDescriptor<Model>]
    package var fetchLimit: Int?
    package var fetchOffset: Int?
    /// Relationships to fill for every fetched object with one query each, instead of one query per object
    /// when first accessed.
    package var relationshipKeyPathsForPrefetching: [String]

    package init(
        predicate: FetchPredicate<Model>? = nil, sortBy: [FetchSortDescriptor<Model>] = [], fetchLimit: Int? = nil,
        fetchOffset: Int? = nil, relationshipKeyPathsForPrefetching: [String] = []
    ) {
        self.predicate = predicate
        self.sortBy = sortBy
        self.fetchLimit = fetchLimit
        self.fetchOffset = fetchOffset
        self.relationshipKeyPathsForPrefetching = relationshipKeyPathsForPrefetching
    }

    /// `WHERE … ORDER BY … LIMIT ? OFFSET ?` after `select`, and its bindings.
    func sql(after select: String) -> (sql: String, bindings: [AttributeValue]) {
        var sql = select
        var bindings: [AttributeValue] = []
        if let predicate {
            sql += " WHERE " + predicate.sql
            bindings = predicate.bindings
        }
        if !sortBy.isEmpty { sql += " ORDER BY " + sortBy.map(\.sql).joined(separator: ", ") }
        if fetchLimit != nil || fetchOffset != nil {
            sql += " LIMIT ? OFFSET ?"
            bindings += [.integer(Int64(fetchLimit ?? -1)), .integer(Int64(fetchOffset ?? 0))]
        }
        return (sql, bindings)
    }
}
