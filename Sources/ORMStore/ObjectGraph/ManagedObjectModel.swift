import Foundation

/// The model a container opens its store with: every entity resolved, numbered and laid out in SQLite.
///
/// Entities are numbered as Core Data numbers them (`Z_ENT`, from 1 in alphabetical order); each table is
/// `Z<ENTITY>` with `Z_PK`, `Z_ENT`, `Z_OPT`, then a `Z<ATTRIBUTE>` column per attribute, then for each to-one
/// relationship its foreign key `Z<RELATIONSHIP>` (indexed) and, when its inverse is ordered, the order
/// `Z_FOK_<RELATIONSHIP>`.
package final class ManagedObjectModel {
    let entities: [Entity]
    private let entitiesByType: [ObjectIdentifier: Entity]
    private let entitiesByName: [String: Entity]

    /// Resolves the model classes' descriptions: every relationship's destination and inverse must exist and
    /// pair a to-one with a to-many (ordered or not).
    ///
    /// - Throws: `ORMError.model` naming the entity and relationship that does not resolve.
    package convenience init(_ types: [any PersistentModel.Type]) throws {
        try self.init(entities: types.map { ($0, $0.entityDescription) })
    }

    /// A model of classes whose descriptions are given: an entity made at run time (`Model.Record`, from a
    /// record shape), as Core Data builds an `NSManagedObjectModel` in code.
    package init(entities described: [(type: ManagedObject.Type, description: EntityDescription)]) throws {
        let sorted = described.sorted { $0.description.name < $1.description.name }
        entities = sorted.enumerated().map { index, entry in
            Entity(index: index, type: entry.type, description: entry.description)
        }
        var byType: [ObjectIdentifier: Entity] = [:]
        for entity in entities { byType[ObjectIdentifier(entity.type)] = entity }
        entitiesByType = byType
        let byName = Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        entitiesByName = byName
        guard byName.count == entities.count else {
            throw ORMError.model("two model classes have the same entity name")
        }
        func resolve(_ relationship: RelationshipDescription, of entity: Entity) throws
            -> (destination: Entity, inverse: RelationshipDescription)
        {
            guard let destination = byName[relationship.destination],
                let inverse = destination.description.relationships.first(where: { $0.name == relationship.inverse })
            else {
                throw ORMError.model(
                    "\(entity.name).\(relationship.name): no relationship \(relationship.destination).\(relationship.inverse)"
                )
            }
            guard relationship.kind == .toOne || inverse.kind == .toOne else {
                throw ORMError.model(
                    "\(entity.name).\(relationship.name): many-to-many relationships are not supported")
            }
            guard relationship.kind != .toOne || inverse.kind != .toOne else {
                throw ORMError.model("\(entity.name).\(relationship.name): one-to-one relationships are not supported")
            }
            return (destination, inverse)
        }
        // Foreign key and order columns first, since to-many relationships point at their destination's.
        for entity in entities {
            for relationship in entity.description.relationships where relationship.kind == .toOne {
                let inverse = try resolve(relationship, of: entity).inverse
                entity.addForeignKey(for: relationship, orderedInverse: inverse.kind == .orderedToMany)
            }
        }
        for entity in entities {
            entity.relationships = try entity.description.relationships.map { relationship in
                let (destination, inverse) = try resolve(relationship, of: entity)
                let (owner, foreignKey) = relationship.kind == .toOne ? (entity, relationship) : (destination, inverse)
                guard let columns = owner.foreignKeyColumns[foreignKey.name] else {
                    throw ORMError.model("\(owner.name).\(foreignKey.name) has no foreign key column")
                }
                return Relationship(
                    description: relationship, destination: destination, inverseIndex: inverse.index,
                    foreignKeyColumn: columns.key, orderColumn: columns.order)
            }
            entity.finishLayout()
        }
    }

    /// The entity of a model class, or an error naming a class the model does not hold.
    ///
    /// The entity with this name (a `PersistentIdentifier`'s), or nil.
    func entity(named name: String) -> Entity? { entitiesByName[name] }

    func entity(for type: ManagedObject.Type) throws -> Entity {
        guard let entity = entitiesByType[ObjectIdentifier(type)] else {
            throw ORMError.model("\(type) is not in the model (\(entities.map(\.name).joined(separator: ", ")))")
        }
        return entity
    }

    /// Every statement that creates the store's tables and indexes, Core Data's bookkeeping tables included.
    var schema: [String] {
        entities.flatMap(\.schema) + [
            "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)",
            "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)",
            "CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)",
        ]
    }

    /// Entity name → a hash of its tables and indexes, kept in the store's metadata as Core Data keeps its
    /// entity version hashes: a store written with another model is refused, not misread.
    var versionHashes: [String: Data] {
        Dictionary(
            entities.map { entity in
                var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a
                for byte in entity.schema.joined(separator: ";").utf8 {
                    hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
                }
                return (entity.name, withUnsafeBytes(of: hash.bigEndian) { Data($0) })
            }, uniquingKeysWith: { first, _ in first })
    }
}

/// One column after `Z_PK`, `Z_ENT` and `Z_OPT`.
struct Column {
    let name: String
    let storage: AttributeStorage
    /// A binary column whose values may be kept in files (`AttributeDescription.allowsExternalStorage`).
    var allowsExternalStorage = false
}

/// An entity of an opened model: its number, table, columns and resolved relationships.
package final class Entity {
    /// Position in the model; `Z_ENT` is `index + 1`.
    let index: Int
    let type: ManagedObject.Type
    let description: EntityDescription
    var name: String { description.name }
    var number: Int64 { Int64(index + 1) }
    /// `ZITEM` for `Item`.
    let table: String
    /// Attributes first (column `i` is attribute `i`), then foreign keys and orders.
    private(set) var columns: [Column]
    /// Relationship name → its foreign key column and order column, for to-one relationships.
    private(set) var foreignKeyColumns: [String: (key: Int, order: Int?)] = [:]
    fileprivate(set) var relationships: [Relationship] = []
    /// The columns of the unique attributes (`@Attribute(.unique)`), in the model's order.
    let uniqueColumns: [Int]
    /// `SELECT t0.Z_PK, t0.Z_OPT, <columns> FROM <table> t0`: what every fetch of this entity reads.
    private(set) var selectSQL = ""
    private(set) var insertSQL = ""
    /// Per unique column, `SELECT Z_PK, Z_OPT FROM <table> WHERE <column> = ?`: an upsert's look-up.
    private(set) var uniqueLookupSQL: [(column: Int, sql: String)] = []
    /// `UPDATE <table> SET Z_OPT = ?, <every column> = ? WHERE Z_PK = ?`: an upserted object's write.
    private(set) var upsertSQL = ""

    init(index: Int, type: ManagedObject.Type, description: EntityDescription) {
        self.index = index
        self.type = type
        self.description = description
        table = "Z" + description.name.uppercased()
        columns = description.attributes.map {
            Column(
                name: "Z" + $0.name.uppercased(), storage: $0.storage, allowsExternalStorage: $0.allowsExternalStorage)
        }
        let attributes = description.attributes
        uniqueColumns = description.uniqueAttributes.compactMap { name in
            attributes.firstIndex { $0.name == name }
        }
    }

    fileprivate func addForeignKey(for relationship: RelationshipDescription, orderedInverse: Bool) {
        let key = columns.count
        columns.append(Column(name: "Z" + relationship.name.uppercased(), storage: .integer))
        var order: Int?
        if orderedInverse {
            order = columns.count
            columns.append(Column(name: "Z_FOK_" + relationship.name.uppercased(), storage: .integer))
        }
        foreignKeyColumns[relationship.name] = (key, order)
    }

    fileprivate func finishLayout() {
        precondition(columns.count <= 64, "\(name) has more than 64 columns; changed-column masks are 64 bits")
        selectSQL =
            "SELECT t0.Z_PK, t0.Z_OPT, " + columns.map { "t0." + $0.name }.joined(separator: ", ")
            + " FROM \(table) t0"
        insertSQL =
            "INSERT INTO \(table) (Z_PK, Z_ENT, Z_OPT, " + columns.map(\.name).joined(separator: ", ")
            + ") VALUES (?, ?, ?" + String(repeating: ", ?", count: columns.count) + ")"
        uniqueLookupSQL = uniqueColumns.map { ($0, "SELECT Z_PK, Z_OPT FROM \(table) WHERE \(columns[$0].name) = ?") }
        upsertSQL = "UPDATE \(table) SET Z_OPT = ?" + columns.map { ", \($0.name) = ?" }.joined() + " WHERE Z_PK = ?"
    }

    /// The column holding attribute `name`, as SQL with the fetch's table alias: `t0.ZTITLE`.
    static func columnSQL(attribute name: String) -> String { "t0.Z" + name.uppercased() }

    var schema: [String] {
        var definitions = ["Z_PK INTEGER PRIMARY KEY", "Z_ENT INTEGER", "Z_OPT INTEGER"]
        definitions += columns.map { "\($0.name) \($0.storage.columnType)" }
        definitions += description.uniqueAttributes.map { "UNIQUE (Z\($0.uppercased()))" }
        var statements = ["CREATE TABLE \(table) ( " + definitions.joined(separator: ", ") + " )"]
        // Core Data indexes every to-one foreign key: `ZTEAM_ZSPORT_INDEX`.
        for relationship in description.relationships where relationship.kind == .toOne {
            let column = "Z" + relationship.name.uppercased()
            statements.append("CREATE INDEX \(table)_\(column)_INDEX ON \(table) (\(column))")
        }
        for index in description.indexes {
            let columns = index.attributes.map { "Z" + $0.uppercased() }.joined(separator: ", ")
            statements.append("CREATE INDEX Z_\(name)_\(index.name) ON \(table) (\(columns))")
        }
        return statements
    }
}

/// A relationship of an opened model, joined to its destination and inverse.
struct Relationship {
    let description: RelationshipDescription
    unowned let destination: Entity
    /// The inverse's position among the destination's relationships.
    let inverseIndex: Int
    /// The foreign key column: this entity's for a to-one, the destination's for a to-many.
    let foreignKeyColumn: Int
    /// The order column (`Z_FOK_…`) when the to-many side is ordered: this entity's for a to-one, the
    /// destination's for an ordered to-many.
    let orderColumn: Int?

    var kind: RelationshipDescription.Kind { description.kind }
}
