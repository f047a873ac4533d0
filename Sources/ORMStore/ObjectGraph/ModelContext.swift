import Foundation
import Observation
import PersistenceBench
import SQLiteSupport

/// A scratchpad of managed objects over a container, as SwiftData's `ModelContext` and Core Data's
/// `NSManagedObjectContext`: it fetches objects, keeps one object per row (the identity map), tracks inserted,
/// changed and deleted objects, and writes them at `save()`.
///
/// Registered objects that are unchanged are not retained: when the last reference to one goes away it
/// leaves the identity map (Core Data's default). Inserted, changed and deleted objects are retained until
/// saved. One thread at a time, like the objects.
package final class ModelContext {
    package let container: ModelContainer
    /// The connection this context fetches on: its own (a context on another thread), or the writer's when nil.
    /// Saves always go through the writer.
    let reads: PooledConnection?
    /// Per entity, primary key → the object registered for that row.
    private var registered: [[Int64: Unmanaged<ManagedObject>]]
    private var inserted: [ManagedObject] = []
    private var updated: [ManagedObject] = []
    private var deleted: [ManagedObject] = []
    private var lastTemporaryKey: Int64 = 0
    /// Whether objects get an Observation registrar (`SwiftDataMechanisms.observation`).
    private let observes: Bool
    /// Per entity and changed-column mask, the prepared `UPDATE` (Core Data writes only changed columns).
    private var updateStatements: [UpdateShape: String] = [:]

    /// Saves on its own at the first `processPendingChanges()` after this interval has passed since the last
    /// save, as SwiftData's main context saves from its run loop; nil (the default) never autosaves. Unsaved
    /// changes are lost if the process ends first.
    package var autosaveInterval: Duration?
    /// The error of the last autosave that failed; its changes stay pending.
    package private(set) var autosaveError: (any Error)?
    private var lastSave = ContinuousClock.now

    /// Whether other contexts' saves are merged into this one (`automaticallyMergesChangesFromParent`): their
    /// notifications queue up, and `mergePendingChanges()` applies them, as the context's queue would between
    /// the work it runs.
    package var automaticallyMergesChanges = false {
        didSet { container.setMerging(self, automaticallyMergesChanges) }
    }
    /// Save notifications received and not merged yet; guarded by the coordinator's lock.
    private var pendingMerges: [ContextDidSave] = []
    /// Bumped for every save notification received: what an observer of this context waits on.
    let notifications = CommitSignal()

    /// A context on `container` that fetches on the writer's connection, or on `reads` (one of
    /// `ModelContainer.openReadConnection()`) for a context on another thread.
    init(_ container: ModelContainer, reads: PooledConnection?) {
        self.container = container
        self.reads = reads
        observes = container.mechanisms.contains(.observation)
        registered = Array(repeating: [:], count: container.model.entities.count)
    }

    package convenience init(_ container: ModelContainer) {
        self.init(container, reads: nil)
    }

    deinit { reset() }

    // MARK: Changes

    package var hasChanges: Bool { !inserted.isEmpty || !updated.isEmpty || !deleted.isEmpty }
    package var changedModels: [ManagedObject] { updated.filter { !$0.isDeleted } }
    /// Objects in the identity map: fetched or saved, and still referenced.
    package var registeredModelCount: Int { registered.reduce(0) { $0 + $1.count } }

    func nextTemporaryKey() -> Int64 {
        lastTemporaryKey -= 1
        return lastTemporaryKey
    }

    func insert(_ object: ManagedObject) {
        object.context = self
        if observes { object.registrar = ObservationRegistrar() }
        object.state.insert(.inserted)
        inserted.append(object)
    }

    /// Marks `object` deleted: its row goes at the next save, after its relationships' delete rules ran.
    package func delete(_ object: ManagedObject) {
        guard object.context === self, !object.isDeleted else { return }
        // The row's version is needed for the optimistic-locking check of the DELETE.
        if object.primaryKey > 0, object.snapshot == nil { object.fireFault() }
        object.state.insert(.deleted)
        deleted.append(object)
    }

    /// Registers a change to a stored object, firing its fault first: a save checks its row's version.
    func markUpdated(_ object: ManagedObject) {
        guard object.state.isDisjoint(with: [.inserted, .updated, .deleted]) else { return }
        if object.isFault { object.fireFault() }
        object.state.insert(.updated)
        updated.append(object)
    }

    /// Applies the delete rules of deleted objects, and autosaves when the interval has passed: what the main
    /// context does at the end of each run-loop turn.
    package func processPendingChanges() {
        applyDeleteRules()
        guard let interval = autosaveInterval, hasChanges, ContinuousClock.now - lastSave >= interval else { return }
        do {
            try save()
            autosaveError = nil
        } catch {
            autosaveError = error
        }
    }

    /// Forgets every object: pending changes are dropped, registered objects are cut off from the context and
    /// its row cache, and relationship cycles between them are broken. Objects must not be used afterwards.
    package func reset() {
        var objects = inserted + updated + deleted
        for table in registered { objects += table.values.map { $0.takeUnretainedValue() } }
        registered = Array(repeating: [:], count: registered.count)
        inserted = []
        updated = []
        deleted = []
        // `objects` keeps every object alive until all are detached, so no deinit runs while this loop does.
        for object in objects { object.detach() }
    }

    // MARK: Merging other contexts' saves

    /// Ends a context of `ModelContainer.makeMergingContext()`: it stops merging, forgets its objects and closes its
    /// read connection.
    func closeMergingContext() throws {
        automaticallyMergesChanges = false
        reset()
        try reads?.close()
    }

    /// Queues another context's save notification; called on the saving context's thread, under the coordinator's
    /// lock.
    func receive(_ notification: ContextDidSave) {
        pendingMerges.append(notification)
        notifications.committed()
    }

    /// Applies the save notifications received since the last merge, as Core Data's `mergeChanges(fromContextDidSave:)`
    /// does: registered objects that another context updated are turned back into faults (their row cache entry
    /// holds the saved values), those it deleted leave the identity map, and its inserted objects are faulted in.
    package func mergePendingChanges() {
        let notifications = container.rowCache.coordinated {
            defer { pendingMerges = [] }
            return pendingMerges
        }
        for notification in notifications {
            for id in notification.updated {
                guard let entity = container.model.entity(named: id.entityName),
                    let object = registered[entity.index][id.key]?.takeUnretainedValue(),
                    object.state.isDisjoint(with: [.inserted, .updated, .deleted])
                else { continue }
                object.state.insert(.fault)
            }
            for id in notification.deleted {
                guard let entity = container.model.entity(named: id.entityName),
                    let object = registered[entity.index][id.key]?.takeUnretainedValue()
                else { continue }
                forget(object)
                object.state = .deleted
            }
            for id in notification.inserted {
                guard let entity = container.model.entity(named: id.entityName) else { continue }
                // A fault for the new row, released at once unless something holds it: the merge's own cost.
                _ = registeredObject(entity, primaryKey: id.key)
            }
        }
    }

    // MARK: Identity map

    /// Called by an object going away: it leaves the identity map.
    func forget(_ object: ManagedObject) {
        let index = object.entity.index
        let key = object.primaryKey
        if registered[index][key]?.toOpaque() == Unmanaged.passUnretained(object).toOpaque() {
            registered[index][key] = nil
        }
    }

    /// The object registered for a row, or a new fault for it (filled with one query when first used).
    func registeredObject(_ entity: Entity, primaryKey: Int64) -> ManagedObject {
        if let object = registered[entity.index][primaryKey] { return object.takeUnretainedValue() }
        let object = makeFault(entity, primaryKey: primaryKey)
        object.snapshot = container.rowCache.snapshot(entityIndex: entity.index, primaryKey: primaryKey)
        return object
    }

    private func makeFault(_ entity: Entity, primaryKey: Int64) -> ManagedObject {
        let object = entity.type.init(entity: entity, primaryKey: primaryKey)
        object.context = self
        object.state = .fault
        if observes { object.registrar = ObservationRegistrar() }
        registered[entity.index][primaryKey] = Unmanaged.passUnretained(object)
        return object
    }

    /// The object for the row `row` is positioned on (a `selectSQL` row of `entity`): the registered one if
    /// any, else a new fault whose row goes to the row cache.
    private func object(for row: SQLiteStatement, of entity: Entity) -> ManagedObject {
        let primaryKey = row.int64(at: 0)
        if let object = registered[entity.index][primaryKey] { return object.takeUnretainedValue() }
        let snapshot = container.rowCache.snapshot(
            entityIndex: entity.index, primaryKey: primaryKey, version: row.int64(at: 1)
        ) { container.values(of: entity, in: row) }
        let object = makeFault(entity, primaryKey: primaryKey)
        object.snapshot = snapshot
        return object
    }

    /// Fills a fault whose row is not in the row cache: one query.
    func fulfillFault(_ object: ManagedObject) throws {
        let entity = object.entity
        try container.query(entity.selectSQL + " WHERE t0.Z_PK = ?", [.integer(object.primaryKey)], on: reads) { row in
            object.snapshot = container.rowCache.snapshot(
                entityIndex: entity.index, primaryKey: object.primaryKey, version: row.int64(at: 1)
            ) { container.values(of: entity, in: row) }
        }
        guard let snapshot = object.snapshot else {
            throw ORMError.objectNotFound(object.persistentModelID.description)
        }
        object.values = snapshot.values
        object.state.remove(.fault)
    }

    // MARK: Fetching

    /// The objects matching `descriptor`, as faults backed by the row cache (or the objects already registered
    /// for those rows). Reads what is saved: objects deleted in this context are left out, unsaved inserts are
    /// not matched.
    package func fetch<Model: PersistentModel>(_ descriptor: FetchDescriptor<Model>) throws -> [Model] {
        let entity = try container.model.entity(for: Model.self)
        let (sql, bindings) = descriptor.sql(after: entity.selectSQL)
        var results: [Model] = []
        try container.query(sql, bindings, on: reads) { row in
            let object = object(for: row, of: entity)
            if !object.isDeleted { results.append(unsafeDowncast(object, to: Model.self)) }
        }
        for name in descriptor.relationshipKeyPathsForPrefetching {
            guard let index = entity.description.relationships.firstIndex(where: { $0.name == name }) else {
                throw ORMError.model("\(entity.name) has no relationship \(name) to prefetch")
            }
            try prefetch(index, of: results)
        }
        return results
    }

    /// How many saved objects match the descriptor's predicate: `SELECT COUNT(*)`, no objects.
    package func fetchCount<Model: PersistentModel>(_ descriptor: FetchDescriptor<Model>) throws -> Int {
        let entity = try container.model.entity(for: Model.self)
        let (sql, bindings) = FetchDescriptor(predicate: descriptor.predicate).sql(
            after: "SELECT COUNT(*) FROM \(entity.table) t0")
        var count = 0
        try container.query(sql, bindings, on: reads) { count = Int($0.int64(at: 0)) }
        return count
    }

    /// The members of a to-many relationship fault: one query, in stored order if ordered. Objects deleted or
    /// moved to another owner in memory are left out.
    func fetchRelated(of object: ManagedObject, _ index: Int) throws -> [ManagedObject] {
        let relationship = object.entity.relationships[index]
        let destination = relationship.destination
        var found: [ManagedObject] = []
        if object.primaryKey > 0 {
            try container.query(
                membersSQL(of: relationship, "= ?"),
                [.integer(object.primaryKey)], on: reads
            ) { found.append(self.object(for: $0, of: destination)) }
            found = found.filter { isMember($0, of: object, inverse: relationship.inverseIndex) }
        }
        // Objects pointed at the owner in memory since the last save: inserted ones, and saved ones moved here
        // while this relationship was a fault. Their rows do not say so yet.
        let stored = Set(found.map(ObjectIdentifier.init))
        for candidate in inserted + updated
        where candidate.entity === destination && !candidate.isDeleted && !stored.contains(ObjectIdentifier(candidate))
        {
            if case .toOne(let owner) = candidate.relations[relationship.inverseIndex], owner === object {
                found.append(candidate)
            }
        }
        return found
    }

    /// The query for the members of a to-many relationship whose owners' keys satisfy `condition`, by owner,
    /// then in stored order (ordered) or by primary key.
    private func membersSQL(of relationship: Relationship, _ condition: String) -> String {
        let destination = relationship.destination
        let key = "t0." + destination.columns[relationship.foreignKeyColumn].name
        let order = relationship.orderColumn.map { ", t0." + destination.columns[$0].name } ?? ""
        return destination.selectSQL + " WHERE \(key) \(condition) ORDER BY \(key)\(order), t0.Z_PK"
    }

    private func isMember(_ member: ManagedObject, of owner: ManagedObject, inverse: Int) -> Bool {
        if member.isDeleted { return false }
        if case .toOne(let current) = member.relations[inverse] { return current === owner }
        return true
    }

    /// Fills relationship `index` of every object in `objects` with one query.
    private func prefetch(_ index: Int, of objects: [ManagedObject]) throws {
        guard let first = objects.first else { return }
        let relationship = first.entity.relationships[index]
        let destination = relationship.destination
        if relationship.kind == .toOne {
            var keys: [AttributeValue] = []
            var seen = Set<Int64>()
            for object in objects {
                guard case .fault = object.relations[index] else { continue }
                if object.isFault { object.fireFault() }
                let key = object.values[relationship.foreignKeyColumn]
                // Each destination once: many objects can point at the same one.
                if case .integer(let primaryKey) = key, registered[destination.index][primaryKey] == nil,
                    seen.insert(primaryKey).inserted
                {
                    keys.append(key)
                }
            }
            var fetched: [ManagedObject] = []  // alive until every relationship below holds its destination
            try container.query(
                destination.selectSQL + " WHERE t0.Z_PK IN (SELECT value FROM json_each(?))", [.text(jsonArray(keys))],
                on: reads
            ) { fetched.append(object(for: $0, of: destination)) }
            for object in objects { _ = object.relatedObject(index) }
            return
        }
        let owners = objects.filter { object in
            guard case .fault = object.relations[index] else { return false }
            return object.primaryKey > 0
        }
        var members: [Int64: [ManagedObject]] = [:]
        let keyColumn = Int32(relationship.foreignKeyColumn + 2)
        try container.query(
            membersSQL(of: relationship, "IN (SELECT value FROM json_each(?))"),
            [.text(jsonArray(owners.map { .integer($0.primaryKey) }))], on: reads
        ) { row in members[row.int64(at: keyColumn), default: []].append(object(for: row, of: destination)) }
        for owner in owners {
            owner.relations[index] = .toMany(
                (members[owner.primaryKey] ?? []).filter {
                    isMember($0, of: owner, inverse: relationship.inverseIndex)
                })
        }
    }

    // MARK: Saving

    /// Writes every change in one transaction: applies delete rules, validates, allocates primary keys in
    /// `Z_PRIMARYKEY`, then one `DELETE`, `INSERT` or `UPDATE` per object, each `UPDATE` and `DELETE` checking
    /// the row's `Z_OPT` (optimistic locking); then updates the row cache.
    ///
    /// - Throws: `ORMError.validation`, `ORMError.optimisticLockingFailure` or `SQLiteError`; nothing is
    ///   written then, and the changes stay pending.
    ///
    /// With the container's `SwiftDataMechanisms`: inserted objects whose unique attributes match a stored row
    /// update that row (upsert), the transaction also writes the save's history, a `didSave` notification with
    /// the changed identifiers follows the commit, and then the WAL checkpoint and incremental vacuum.
    package func save() throws {
        applyDeleteRules()
        guard hasChanges else { return }
        try validate()
        let saving = inserted.filter { !$0.isDeleted }
        let temporaryKeys = saving.map(\.primaryKey)
        let mechanisms = container.mechanisms
        var matched: [ObjectIdentifier: Int64] = [:]
        do {
            try container.connection.transaction {
                if mechanisms.contains(.upsert) { matched = try matchStoredRows(saving) }
                try assignPrimaryKeys(to: matched.isEmpty ? saving : saving.filter { matched[$0.identity] == nil })
                writeRelationshipColumns(saving)
                var history: [(object: ManagedObject, change: ModelContainer.HistoryChange, columns: UInt64)] = []
                for object in deleted where object.primaryKey > 0 {
                    try writeDelete(object)
                    if mechanisms.contains(.historyTracking) { history.append((object, .delete, 0)) }
                }
                for object in saving {
                    if let version = matched[object.identity] {
                        try writeUpsert(object, over: version)
                    } else {
                        try writeInsert(object)
                    }
                    if mechanisms.contains(.historyTracking) {
                        let upserted = matched[object.identity] != nil
                        history.append((object, upserted ? .update : .insert, upserted ? ~0 : 0))
                    }
                }
                for object in updated where !object.isDeleted {
                    let columns = try writeUpdate(object)
                    if mechanisms.contains(.historyTracking) { history.append((object, .update, columns)) }
                }
                if !history.isEmpty { try container.recordHistory(history) }
            }
        } catch {
            for (object, key) in zip(saving, temporaryKeys) { object.primaryKey = key }
            throw error
        }
        // Identifiers are collected only when some context merges saves or the store posts them.
        let notification =
            container.hasMergingContexts || mechanisms.contains(.saveNotification)
            ? ContextDidSave(
                inserted: saving.map(\.persistentModelID),
                updated: updated.filter { !$0.isDeleted }.map(\.persistentModelID),
                deleted: deleted.filter { $0.primaryKey > 0 }.map(\.persistentModelID)) : nil
        container.rowCache.coordinated { didSave(saving, versions: matched) }
        if let notification {
            container.post(notification, from: self)
            if mechanisms.contains(.saveNotification) {
                NotificationCenter.default.post(
                    name: Self.didSave, object: self,
                    userInfo: [
                        "inserted": notification.inserted, "updated": notification.updated,
                        "deleted": notification.deleted,
                    ])
            }
        }
        if mechanisms.contains(.postSaveMaintenance) { try container.maintainAfterSave() }
    }

    /// Posted after every save when the container has `SwiftDataMechanisms.saveNotification`, as SwiftData's
    /// `ModelContext.didSave`: the object is the context, the user info holds the `inserted`, `updated` and
    /// `deleted` identifiers.
    package static let didSave = Notification.Name("PersistenceBench.ModelContext.didSave")

    /// Upsert: per inserted object of an entity with unique attributes, one indexed query per attribute for a
    /// stored row holding the same value. Returns the objects that matched, each with its row's version; they
    /// take that row's primary key.
    private func matchStoredRows(_ saving: [ManagedObject]) throws -> [ObjectIdentifier: Int64] {
        var matched: [ObjectIdentifier: Int64] = [:]
        for object in saving {
            for (column, sql) in object.entity.uniqueLookupSQL {
                let statement = try container.statement(sql)
                defer { statement.reset() }
                container.bind(object.values[column], at: 1, to: statement)
                guard try statement.step() else { continue }
                object.primaryKey = statement.int64(at: 0)
                matched[object.identity] = statement.int64(at: 1)
                break
            }
        }
        return matched
    }

    /// An upserted object's write: every column of the stored row it matched, its version moved on.
    private func writeUpsert(_ object: ManagedObject, over version: Int64) throws {
        let statement = try container.statement(object.entity.upsertSQL)
        defer { statement.reset() }
        statement.bind(version + 1, at: 1)
        container.bind(object.values, to: statement, from: 2)
        statement.bind(object.primaryKey, at: Int32(object.values.count + 2))
        _ = try statement.step()
    }

    private func applyDeleteRules() {
        var position = 0
        while position < deleted.count {
            let object = deleted[position]
            position += 1
            guard !object.state.contains(.deleteRulesApplied) else { continue }
            object.state.insert(.deleteRulesApplied)
            for (index, relationship) in object.entity.relationships.enumerated() {
                let cascades = relationship.description.deleteRule == .cascade
                if relationship.kind == .toOne {
                    guard let destination = object.relatedObject(index), !destination.isDeleted else { continue }
                    if cascades {
                        delete(destination)
                    } else {
                        destination.removeLoaded(object, at: relationship.inverseIndex)
                        markUpdated(destination)
                    }
                } else {
                    for member in object.relatedObjects(index) where !member.isDeleted {
                        if cascades {
                            delete(member)
                        } else {
                            member.relations[relationship.inverseIndex] = .toOne(nil)
                            markUpdated(member)
                        }
                    }
                }
            }
        }
    }

    private func validate() throws {
        for objects in [inserted, updated] {
            for object in objects where !object.isDeleted {
                for attribute in object.entity.description.attributes where !attribute.isOptional {
                    if case .null = object.values[attribute.index] {
                        throw ORMError.validation(object.persistentModelID.description, attribute.name)
                    }
                }
            }
        }
    }

    private func assignPrimaryKeys(to objects: [ManagedObject]) throws {
        var next = [Int64](repeating: 0, count: registered.count)
        var counts = [Int](repeating: 0, count: registered.count)
        for object in objects { counts[object.entity.index] += 1 }
        for (index, count) in counts.enumerated() where count > 0 {
            next[index] = try container.allocatePrimaryKeys(for: container.model.entities[index], count: count)
        }
        for object in objects {
            object.primaryKey = next[object.entity.index]
            next[object.entity.index] += 1
        }
    }

    /// Copies to-one relationships into their foreign key columns and ordered to-many positions into their
    /// members' order columns; a member whose position changed becomes an updated object.
    private func writeRelationshipColumns(_ saving: [ManagedObject]) {
        func write(_ object: ManagedObject) {
            for (index, relationship) in object.entity.relationships.enumerated() {
                switch object.relations[index] {
                case .toOne(let destination):
                    object.values[relationship.foreignKeyColumn] = destination.map { .integer($0.primaryKey) } ?? .null
                    if destination == nil, let order = relationship.orderColumn { object.values[order] = .null }
                case .toMany(let members):
                    guard let orderColumn = relationship.orderColumn else { continue }
                    for (position, member) in members.enumerated() {
                        let order = AttributeValue.integer(Int64(position + 1))
                        if member.isFault { member.fireFault() }
                        guard member.values[orderColumn] != order else { continue }
                        member.values[orderColumn] = order
                        markUpdated(member)
                    }
                case .fault: continue
                }
            }
        }
        for object in saving { write(object) }
        var position = 0
        while position < updated.count {  // grows while members move
            if !updated[position].isDeleted { write(updated[position]) }
            position += 1
        }
    }

    private func writeInsert(_ object: ManagedObject) throws {
        let entity = object.entity
        let statement = try container.statement(entity.insertSQL)
        defer { statement.reset() }
        statement.bind(object.primaryKey, at: 1)
        statement.bind(entity.number, at: 2)
        statement.bind(Int64(1), at: 3)
        for (offset, value) in object.values.enumerated() {
            container.bind(value, at: Int32(offset + 4), to: statement)
        }
        _ = try statement.step()
    }

    /// Writes the changed columns of a stored object and returns their mask.
    @discardableResult
    private func writeUpdate(_ object: ManagedObject) throws -> UInt64 {
        guard let snapshot = object.snapshot else {
            throw ORMError.objectNotFound(object.persistentModelID.description)
        }
        let entity = object.entity
        var mask: UInt64 = 0
        for index in object.values.indices where object.values[index] != snapshot.values[index] {
            mask |= 1 << UInt64(index)
        }
        let shape = UpdateShape(entity: entity.index, columns: mask)
        let sql: String
        if let cached = updateStatements[shape] {
            sql = cached
        } else {
            let assignments = entity.columns.indices.filter { mask & (1 << UInt64($0)) != 0 }
                .map { ", \(entity.columns[$0].name) = ?" }.joined()
            sql = "UPDATE \(entity.table) SET Z_OPT = ?\(assignments) WHERE Z_PK = ? AND Z_OPT = ?"
            updateStatements[shape] = sql
        }
        let statement = try container.statement(sql)
        defer { statement.reset() }
        statement.bind(snapshot.version + 1, at: 1)
        var parameter: Int32 = 2
        for index in object.values.indices where mask & (1 << UInt64(index)) != 0 {
            container.bind(object.values[index], at: parameter, to: statement)
            parameter += 1
        }
        statement.bind(object.primaryKey, at: parameter)
        statement.bind(snapshot.version, at: parameter + 1)
        _ = try statement.step()
        guard container.connection.changes == 1 else {
            throw ORMError.optimisticLockingFailure(object.persistentModelID.description)
        }
        return mask
    }

    private func writeDelete(_ object: ManagedObject) throws {
        guard let snapshot = object.snapshot else {
            throw ORMError.objectNotFound(object.persistentModelID.description)
        }
        let statement = try container.statement("DELETE FROM \(object.entity.table) WHERE Z_PK = ? AND Z_OPT = ?")
        defer { statement.reset() }
        statement.bind(object.primaryKey, at: 1)
        statement.bind(snapshot.version, at: 2)
        _ = try statement.step()
        guard container.connection.changes == 1 else {
            throw ORMError.optimisticLockingFailure(object.persistentModelID.description)
        }
    }

    /// After the commit: saved objects join the identity map and the row cache (an upserted one with its row's
    /// new version), changed rows' snapshots take the new values and version, deleted objects leave the context.
    private func didSave(_ saved: [ManagedObject], versions upserted: [ObjectIdentifier: Int64]) {
        for object in deleted {
            if object.primaryKey > 0 { forget(object) }
            object.state = .deleted
            object.detach()
        }
        let cache = container.rowCache
        for object in saved {
            let snapshot = RowSnapshot(
                primaryKey: object.primaryKey, entityIndex: object.entity.index,
                version: upserted[object.identity].map { $0 + 1 } ?? 1, values: object.values,
                cache: cache)
            cache.insert(snapshot)
            object.snapshot = snapshot
            object.state.remove(.inserted)
            registered[object.entity.index][object.primaryKey] = Unmanaged.passUnretained(object)
        }
        for object in updated where !object.isDeleted {
            if let snapshot = object.snapshot {
                snapshot.values = object.values
                snapshot.version += 1
            }
            object.state.remove(.updated)
        }
        inserted = []
        updated = []
        deleted = []
        lastSave = .now
    }
}

/// An `UPDATE`'s shape: which entity, which columns.
private struct UpdateShape: Hashable {
    let entity: Int
    let columns: UInt64
}
