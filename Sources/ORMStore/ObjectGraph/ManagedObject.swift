import Observation

/// The identity of a managed object: its entity and primary key (`Z_PK`), or a temporary number until the
/// object is first saved.
package struct PersistentIdentifier: Hashable, Sendable, CustomStringConvertible {
    package let entityName: String
    /// `Z_PK` once saved; a negative number, unique within the context, while temporary.
    package let key: Int64

    package var isTemporary: Bool { key < 0 }
    package var description: String { isTemporary ? "\(entityName) (temporary \(-key))" : "\(entityName) \(key)" }
}

/// The base class of model objects: identity, fault state, and attribute and relationship storage that goes
/// through the object's context, as Core Data's `NSManagedObject` and SwiftData's backing data do.
///
/// A fetched object starts as a *fault*: it holds a reference to its row in the container's row cache and
/// copies the row's values on first access (sharing the row's storage until it is changed). Setting a value
/// registers the object as changed in its context. Relationships start as faults too and fire one query on
/// first access, unless the fetch prefetched them. Objects are used on their context's thread only.
///
/// Subclasses declare typed keys and expose them as properties:
///
/// ```swift
/// final class Item: ManagedObject, PersistentModel {
///     static let title = Attribute<Item, String>(0, "title")
///     var title: String {
///         get { value(of: Self.title) }
///         set { setValue(newValue, for: Self.title) }
///     }
/// }
/// ```
package class ManagedObject {
    let entity: Entity
    /// Unretained: a context detaches every object it knows before it goes away (`reset()`).
    unowned(unsafe) var context: ModelContext?
    /// `Z_PK`, or a negative temporary number until saved.
    var primaryKey: Int64
    /// The row this object was filled from, in the container's row cache; nil for a new object.
    var snapshot: RowSnapshot?
    /// Every column's value (attributes, then foreign keys and orders); empty while a fault.
    var values: [AttributeValue]
    var relations: [RelationState]
    var state = State()
    /// The object's Observation registrar, as `@Model` declares one per object, when its container observes
    /// (`SwiftDataMechanisms.observation`); nil otherwise.
    var registrar: ObservationRegistrar?

    struct State: OptionSet {
        let rawValue: UInt8
        static let fault = State(rawValue: 1)
        static let inserted = State(rawValue: 2)
        static let updated = State(rawValue: 4)
        static let deleted = State(rawValue: 8)
        /// Delete rules already applied to this deleted object.
        static let deleteRulesApplied = State(rawValue: 16)
    }

    /// What a relationship of this object holds in memory.
    enum RelationState {
        /// Not loaded: a to-one reads its foreign key, a to-many runs a query, on first access.
        case fault
        case toOne(ManagedObject?)
        case toMany([ManagedObject])
    }

    /// A fault for a stored row, or (with a negative key) a new object; the context calls it and registers
    /// the object.
    ///
    /// Create objects with `init(context:)`.
    package required init(entity: Entity, primaryKey: Int64) {
        self.entity = entity
        self.primaryKey = primaryKey
        values = []
        relations = entity.relationships.isEmpty ? [] : Array(repeating: .fault, count: entity.relationships.count)
    }

    /// Creates an object and inserts it into `context`, as SwiftData's `context.insert(Item())` does; it is
    /// written at the next save.
    ///
    /// Non-optional attributes must be set before then.
    package convenience init(context: ModelContext) {
        let entity: Entity
        do { entity = try context.container.model.entity(for: Self.self) } catch {
            preconditionFailure("\(error)")
        }
        self.init(entity: entity, primaryKey: context.nextTemporaryKey())
        values = Array(repeating: .null, count: entity.columns.count)
        relations = entity.relationships.map { $0.kind == .toOne ? .toOne(nil) : .toMany([]) }
        context.insert(self)
    }

    deinit {
        if let context, primaryKey > 0 { context.forget(self) }
        releaseSnapshot()
    }

    /// Drops the row snapshot, holding the coordinator's lock when the row cache is shared: a snapshot's last
    /// release takes it out of the cache, and no other thread may find it there and retain it meanwhile.
    private func releaseSnapshot() {
        guard let cache = snapshot?.cache else { return }
        cache.coordinated { snapshot = nil }
    }

    package var persistentModelID: PersistentIdentifier {
        PersistentIdentifier(entityName: entity.name, key: primaryKey)
    }

    /// True until the object's values are first read or written.
    package var isFault: Bool { state.contains(.fault) }
    /// This object's identity, as a dictionary key for one save's bookkeeping.
    var identity: ObjectIdentifier { ObjectIdentifier(self) }
    package var isUpdated: Bool { state.contains(.updated) }
    package var isDeleted: Bool { state.contains(.deleted) }

    // MARK: Attributes

    /// The value of an attribute, firing the fault first if needed; with a registrar, after telling it of the
    /// access, as `@Model`'s generated getter does.
    @inline(__always)
    package final func value<Root, Value>(of key: Attribute<Root, Value>) -> Value {
        if let registrar { registrar.access(unsafeDowncast(self, to: Root.self), keyPath: key.keyPath) }
        if state.contains(.fault) { fireFault() }
        return Value(stored: values[key.index])
    }

    /// Sets an attribute and registers the object as changed in its context; with a registrar, inside its
    /// `withMutation`, as `@Model`'s generated setter does.
    @inline(__always)
    package final func setValue<Root, Value>(_ value: Value, for key: Attribute<Root, Value>) {
        guard let registrar else { return store(value, for: key) }
        registrar.withMutation(of: unsafeDowncast(self, to: Root.self), keyPath: key.keyPath) { store(value, for: key) }
    }

    @inline(__always)
    private final func store<Root, Value>(_ value: Value, for key: Attribute<Root, Value>) {
        if state.contains(.fault) { fireFault() }
        values[key.index] = value.stored
        if state.isDisjoint(with: [.inserted, .updated]) { liveContext.markUpdated(self) }
    }

    /// The stored value of attribute `index`, firing the fault first: Core Data's `primitiveValue(forKey:)`, for an
    /// entity whose attributes are known only at run time (`Model.Record`).
    package final func primitiveValue(at index: Int) -> AttributeValue {
        if state.contains(.fault) { fireFault() }
        return values[index]
    }

    /// Sets the stored value of attribute `index` and registers the object as changed, as Core Data's
    /// `setPrimitiveValue(_:forKey:)` inside a `setValue(_:forKey:)`.
    package final func setPrimitiveValue(_ value: AttributeValue, at index: Int) {
        if state.contains(.fault) { fireFault() }
        values[index] = value
        if state.isDisjoint(with: [.inserted, .updated]) { liveContext.markUpdated(self) }
    }

    /// Fills the object's values from its row: from the row cache when it holds the row (no SQL), else with
    /// one query.
    ///
    /// Like Core Data's, a fault that cannot be filled (its row is gone, its context reset) is a fatal error: attribute
    /// accessors cannot throw.
    final func fireFault() {
        if let snapshot {
            values = snapshot.cache.coordinated { snapshot.values }
            state.remove(.fault)
            return
        }
        do { try liveContext.fulfillFault(self) } catch {
            fatalError("cannot fulfil the fault for \(persistentModelID): \(error)")
        }
    }

    /// The context, which a live object always has.
    final var liveContext: ModelContext {
        guard let context else { fatalError("\(persistentModelID) was used after its context was reset") }
        return context
    }

    // MARK: Relationships

    package final func object<Root, Destination>(for key: ToOne<Root, Destination>) -> Destination? {
        relatedObject(key.index).map { unsafeDowncast($0, to: Destination.self) }
    }

    /// Sets a to-one relationship and its inverse, in memory: the old destination's to-many loses this object,
    /// the new one's gains it (firing its fault first, as Core Data does).
    package final func setObject<Root, Destination>(_ object: Destination?, for key: ToOne<Root, Destination>) {
        setRelatedObject(object, at: key.index)
    }

    package final func objects<Root, Destination>(for key: ToMany<Root, Destination>) -> [Destination] {
        relatedObjects(key.index).map { unsafeDowncast($0, to: Destination.self) }
    }

    /// Adds `object` to a to-many relationship (at the end, if ordered) by setting its inverse to-one.
    package final func append<Root, Destination>(_ object: Destination, to key: ToMany<Root, Destination>) {
        object.setRelatedObject(self, at: entity.relationships[key.index].inverseIndex)
    }

    /// Removes `object` from a to-many relationship by clearing its inverse to-one.
    package final func remove<Root, Destination>(_ object: Destination, from key: ToMany<Root, Destination>) {
        let inverse = entity.relationships[key.index].inverseIndex
        if object.relatedObject(inverse) === self { object.setRelatedObject(nil, at: inverse) }
    }

    final func relatedObject(_ index: Int) -> ManagedObject? {
        if case .toOne(let object) = relations[index] { return object }
        if state.contains(.fault) { fireFault() }
        let relationship = entity.relationships[index]
        var object: ManagedObject?
        if case .integer(let key) = values[relationship.foreignKeyColumn] {
            object = liveContext.registeredObject(relationship.destination, primaryKey: key)
        }
        relations[index] = .toOne(object)
        return object
    }

    final func relatedObjects(_ index: Int) -> [ManagedObject] {
        if case .toMany(let objects) = relations[index] { return objects }
        let objects: [ManagedObject]
        do { objects = try liveContext.fetchRelated(of: self, index) } catch {
            fatalError(
                "cannot fulfil the relationship fault \(entity.name).\(entity.relationships[index].description.name) of \(persistentModelID): \(error)"
            )
        }
        relations[index] = .toMany(objects)
        return objects
    }

    final func setRelatedObject(_ object: ManagedObject?, at index: Int) {
        let old = relatedObject(index)
        guard old !== object else { return }
        let context = liveContext
        let inverse = entity.relationships[index].inverseIndex
        if let old {
            old.removeLoaded(self, at: inverse)
            context.markUpdated(old)
        }
        if let object {
            // An ordered to-many's fault fires first, so that the new member's position follows the stored ones.
            // An unordered one stays a fault if it is one, as Core Data's does: when it fires, it reads the stored
            // members and adds the context's unsaved ones (`ModelContext.fetchRelated`). Firing it here would read
            // every stored member for each one added.
            if object.entity.relationships[inverse].kind == .orderedToMany { _ = object.relatedObjects(inverse) }
            object.appendLoaded(self, at: inverse)
            context.markUpdated(object)
        }
        relations[index] = .toOne(object)
        context.markUpdated(self)
    }

    /// Removes `object` from a loaded to-many relationship; an unloaded one reads its members when it fires.
    final func removeLoaded(_ object: ManagedObject, at index: Int) {
        changeLoaded(at: index) { members in
            if let position = members.firstIndex(where: { $0 === object }) { members.remove(at: position) }
        }
    }

    final func appendLoaded(_ object: ManagedObject, at index: Int) {
        changeLoaded(at: index) { $0.append(object) }
    }

    /// Changes a loaded to-many relationship's array in place.
    private func changeLoaded(at index: Int, _ change: (inout [ManagedObject]) -> Void) {
        guard case .toMany(var members) = relations[index] else { return }
        relations[index] = .fault  // no second reference to the array while it changes, so it is not copied
        change(&members)
        relations[index] = .toMany(members)
    }

    /// Forgets everything: after a reset, or after the object's deletion was saved.
    final func detach() {
        context = nil
        releaseSnapshot()
        values = []
        relations = []
    }
}

/// Model objects are observable, as `@Model` makes them: with `SwiftDataMechanisms.observation`, each attribute
/// get and set goes through the object's registrar.
extension ManagedObject: Observable {}
