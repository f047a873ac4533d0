import Foundation
import Observation
import PersistenceBench
import SQLiteSupport

// Saving: one transaction of every change, its delete rules, validation, upserts and optimistic locking.
extension ModelContext {
    // MARK: - Saving

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
                let history = try writeChanges(
                    saving, matched: matched, tracking: mechanisms.contains(.historyTracking))
                if !history.isEmpty { try container.recordHistory(history) }
                // Files of externally stored values, each flushed when written: their entries before the commit.
                try container.externalData?.flush()
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
        if let notification { post(notification, asSwiftData: mechanisms.contains(.saveNotification)) }
        if mechanisms.contains(.postSaveMaintenance) { try container.maintainAfterSave() }
    }

    /// Writes the save's deletions, inserts (an upsert where `matched` has the stored row's version) and updates;
    /// returns, when `tracking`, each change for the save's history.
    private func writeChanges(
        _ saving: [ManagedObject], matched: [ObjectIdentifier: Int64], tracking: Bool
    ) throws -> [(object: ManagedObject, change: ModelContainer.HistoryChange, columns: UInt64)] {
        var history: [(object: ManagedObject, change: ModelContainer.HistoryChange, columns: UInt64)] = []
        for object in deleted where object.primaryKey > 0 {
            try writeDelete(object)
            if tracking { history.append((object, .delete, 0)) }
        }
        for object in saving {
            if let version = matched[object.identity] {
                try writeUpsert(object, over: version)
            } else {
                try writeInsert(object)
            }
            if tracking {
                let upserted = matched[object.identity] != nil
                history.append((object, upserted ? .update : .insert, upserted ? ~0 : 0))
            }
        }
        for object in updated where !object.isDeleted {
            let columns = try writeUpdate(object)
            if tracking { history.append((object, .update, columns)) }
        }
        return history
    }

    /// Posts a save's identifiers to the merging contexts and, `asSwiftData`, as `didSave`.
    private func post(_ notification: ContextDidSave, asSwiftData: Bool) {
        container.post(notification, from: self)
        guard asSwiftData else { return }
        NotificationCenter.default.post(
            name: Self.didSave, object: self,
            userInfo: [
                "inserted": notification.inserted, "updated": notification.updated, "deleted": notification.deleted,
            ])
    }

    /// Posted after every save when the container has `SwiftDataMechanisms.saveNotification`, as SwiftData's
    /// `ModelContext.didSave`: the object is the context, the user info holds the `inserted`, `updated` and
    /// `deleted` identifiers.
    package static let didSave = Notification.Name("PersistenceBench.ModelContext.didSave")

    /// Upsert: per inserted object of an entity with unique attributes, one indexed query per attribute for a
    /// stored row holding the same value.
    ///
    /// Returns the objects that matched, each with its row's version; they take that row's primary key.
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
        for (offset, value) in object.values.enumerated() {
            try container.bind(value, of: object.entity.columns[offset], at: Int32(offset + 2), to: statement)
        }
        statement.bind(object.primaryKey, at: Int32(object.values.count + 2))
        _ = try statement.step()
    }

    func applyDeleteRules() {
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

    // MARK: - Validation and keys

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

    // MARK: - Writing rows

    private func writeInsert(_ object: ManagedObject) throws {
        let entity = object.entity
        let statement = try container.statement(entity.insertSQL)
        defer { statement.reset() }
        statement.bind(object.primaryKey, at: 1)
        statement.bind(entity.number, at: 2)
        statement.bind(Int64(1), at: 3)
        for (offset, value) in object.values.enumerated() {
            try container.bind(value, of: entity.columns[offset], at: Int32(offset + 4), to: statement)
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
            try container.bind(object.values[index], of: entity.columns[index], at: parameter, to: statement)
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

    // MARK: - After the save

    /// After the commit: saved objects join the identity map and the row cache (an upserted one with its row's
    /// new version), changed rows' snapshots take the new values and version, deleted objects leave the context.
    func didSave(_ saved: [ManagedObject], versions upserted: [ObjectIdentifier: Int64]) {
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
struct UpdateShape: Hashable {
    let entity: Int
    let columns: UInt64
}
