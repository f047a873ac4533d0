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
    ///
    /// Saves always go through the writer.
    let reads: PooledConnection?
    /// Per entity, primary key → the object registered for that row.
    var registered: [[Int64: Unmanaged<ManagedObject>]]
    var inserted: [ManagedObject] = []
    var updated: [ManagedObject] = []
    var deleted: [ManagedObject] = []
    private var lastTemporaryKey: Int64 = 0
    /// Whether objects get an Observation registrar (`SwiftDataMechanisms.observation`).
    let observes: Bool
    /// Per entity and changed-column mask, the prepared `UPDATE` (Core Data writes only changed columns).
    var updateStatements: [UpdateShape: String] = [:]

    /// Saves on its own at the first `processPendingChanges()` after this interval has passed since the last
    /// save, as SwiftData's main context saves from its run loop; nil (the default) never autosaves.
    ///
    /// Unsaved changes are lost if the process ends first.
    package var autosaveInterval: Duration?
    /// The error of the last autosave that failed; its changes stay pending.
    package private(set) var autosaveError: (any Error)?
    var lastSave = ContinuousClock.now

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
    /// its row cache, and relationship cycles between them are broken.
    ///
    /// Objects must not be used afterwards.
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
    func object(for row: SQLiteStatement, of entity: Entity) throws -> ManagedObject {
        let primaryKey = row.int64(at: 0)
        if let object = registered[entity.index][primaryKey] { return object.takeUnretainedValue() }
        let snapshot = try container.rowCache.snapshot(
            entityIndex: entity.index, primaryKey: primaryKey, version: row.int64(at: 1)
        ) { try container.values(of: entity, in: row) }
        let object = makeFault(entity, primaryKey: primaryKey)
        object.snapshot = snapshot
        return object
    }

    /// Fills a fault whose row is not in the row cache: one query.
    func fulfillFault(_ object: ManagedObject) throws {
        let entity = object.entity
        try container.query(entity.selectSQL + " WHERE t0.Z_PK = ?", [.integer(object.primaryKey)], on: reads) { row in
            object.snapshot = try container.rowCache.snapshot(
                entityIndex: entity.index, primaryKey: object.primaryKey, version: row.int64(at: 1)
            ) { try container.values(of: entity, in: row) }
        }
        guard let snapshot = object.snapshot else {
            throw ORMError.objectNotFound(object.persistentModelID.description)
        }
        object.values = snapshot.values
        object.state.remove(.fault)
    }
}
