/// A typed attribute of a model class: its position in the entity's attribute list, its name and its type.
///
/// Model classes declare one per stored property and list them in their `EntityDescription`; predicates and
/// sort descriptors are built from them (`Item.title == "x"`), as SwiftData builds them from key paths.
package struct Attribute<Root: ManagedObject, Value: AttributeType>: Sendable {
    package let index: Int
    package let name: String
    /// The model's property for this attribute (`\Item.title`): what an Observation registrar is told about.
    package let keyPath: KeyPath<Root, Value> & Sendable

    package init(_ index: Int, _ name: String, _ keyPath: KeyPath<Root, Value> & Sendable) {
        self.index = index
        self.name = name
        self.keyPath = keyPath
    }

    package var description: AttributeDescription {
        AttributeDescription(index: index, name: name, storage: Value.storage, isOptional: Value.isOptional)
    }
}

/// A stored attribute: a `Z<NAME>` column.
package struct AttributeDescription: Sendable {
    /// The position of the attribute's key, which must be its position in the entity's list.
    package let index: Int
    package let name: String
    package let storage: AttributeStorage
    package let isOptional: Bool
    /// Core Data's "Allows External Storage" (`allowsExternalBinaryDataStorage`, SwiftData's
    /// `@Attribute(.externalStorage)`) on a binary attribute: a value above `ModelContainer.externalStorageThreshold`
    /// is kept in a file of its own (`ModelContainer.externalData`).
    package var allowsExternalStorage = false
}

/// What deleting an object does to the objects its relationship points at, at the next save.
package enum DeleteRule: Sendable {
    /// The related objects stay; their side of the relationship forgets the deleted object.
    case nullify
    /// The related objects are deleted too (and their own rules applied).
    case cascade
}

/// A relationship as a model declares it.
///
/// The to-one side of a pair owns the foreign key column `Z<NAME>`; when the to-many side is ordered, the to-one side's
/// table also holds the order, `Z_FOK_<NAME>`.
package struct RelationshipDescription: Sendable {
    package enum Kind: Sendable { case toOne, toMany, orderedToMany }

    /// The position of the relationship's key, which must be its position in the entity's list.
    package let index: Int
    package let name: String
    package let kind: Kind
    package let destination: String
    package let inverse: String
    package let deleteRule: DeleteRule
}

/// A to-one relationship of `Root` to `Destination`, declared with its inverse and delete rule.
package struct ToOne<Root: ManagedObject, Destination: ManagedObject>: Sendable {
    package let index: Int
    package let description: RelationshipDescription

    package init(_ index: Int, _ name: String, inverse: String, deleteRule: DeleteRule = .nullify) {
        self.index = index
        description = RelationshipDescription(
            index: index, name: name, kind: .toOne, destination: String(describing: Destination.self), inverse: inverse,
            deleteRule: deleteRule)
    }
}

/// A to-many relationship of `Root` to `Destination`, ordered or not, declared with its inverse (a to-one)
/// and delete rule.
package struct ToMany<Root: ManagedObject, Destination: ManagedObject>: Sendable {
    package let index: Int
    package let description: RelationshipDescription

    package init(
        _ index: Int, _ name: String, inverse: String, ordered: Bool = false, deleteRule: DeleteRule = .nullify
    ) {
        self.index = index
        description = RelationshipDescription(
            index: index, name: name, kind: ordered ? .orderedToMany : .toMany,
            destination: String(describing: Destination.self),
            inverse: inverse, deleteRule: deleteRule)
    }
}

/// An entity as its model class declares it: name, attributes and relationships (in the order of their keys'
/// indexes), uniqueness constraints and fetch indexes.
package struct EntityDescription: Sendable {
    package let name: String
    package let attributes: [AttributeDescription]
    package let relationships: [RelationshipDescription]
    /// Attribute names whose values must be unique (SwiftData's `@Attribute(.unique)`): `UNIQUE (Z…)`.
    package let uniqueAttributes: [String]
    /// Named fetch indexes over attribute names (SwiftData's `#Index`): `CREATE INDEX Z_<Entity>_<name>`.
    package let indexes: [(name: String, attributes: [String])]

    package init(
        name: String, attributes: [AttributeDescription], relationships: [RelationshipDescription] = [],
        uniqueAttributes: [String] = [], indexes: [(name: String, attributes: [String])] = []
    ) {
        // A key whose index is not its position would read another attribute's column: a model bug, found at
        // the first use of the description.
        for (position, attribute) in attributes.enumerated() {
            precondition(
                attribute.index == position, "\(name).\(attribute.name) has index \(attribute.index), not \(position)")
        }
        for (position, relationship) in relationships.enumerated() {
            precondition(
                relationship.index == position,
                "\(name).\(relationship.name) has index \(relationship.index), not \(position)")
        }
        self.name = name
        self.attributes = attributes
        self.relationships = relationships
        self.uniqueAttributes = uniqueAttributes
        self.indexes = indexes
    }
}

/// A model class: a `ManagedObject` subclass that describes its entity.
package protocol PersistentModel: ManagedObject {
    static var entityDescription: EntityDescription { get }
}
