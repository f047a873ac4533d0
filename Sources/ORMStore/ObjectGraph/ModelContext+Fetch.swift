import Foundation
import Observation
import PersistenceBench
import SQLiteSupport

// Fetching: what a context reads, as faults backed by the row cache, and its relationships.
extension ModelContext {
    /// The objects matching `descriptor`, as faults backed by the row cache (or the objects already registered
    /// for those rows).
    ///
    /// Reads what is saved: objects deleted in this context are left out, unsaved inserts are not matched.
    package func fetch<Model: ManagedObject>(_ descriptor: FetchDescriptor<Model>) throws -> [Model] {
        let entity = try container.model.entity(for: Model.self)
        let (sql, bindings) = descriptor.sql(after: entity.selectSQL)
        var results: [Model] = []
        try container.query(sql, bindings, on: reads) { row in
            let object = try object(for: row, of: entity)
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
    package func fetchCount<Model: ManagedObject>(_ descriptor: FetchDescriptor<Model>) throws -> Int {
        let entity = try container.model.entity(for: Model.self)
        let (sql, bindings) = FetchDescriptor(predicate: descriptor.predicate).sql(
            after: "SELECT COUNT(*) FROM \(entity.table) t0")
        var count = 0
        try container.query(sql, bindings, on: reads) { count = Int($0.int64(at: 0)) }
        return count
    }

    /// The members of a to-many relationship fault: one query, in stored order if ordered.
    ///
    /// Objects deleted or moved to another owner in memory are left out.
    func fetchRelated(of object: ManagedObject, _ index: Int) throws -> [ManagedObject] {
        let relationship = object.entity.relationships[index]
        let destination = relationship.destination
        var found: [ManagedObject] = []
        if object.primaryKey > 0 {
            try container.query(
                membersSQL(of: relationship, "= ?"),
                [.integer(object.primaryKey)], on: reads
            ) { found.append(try self.object(for: $0, of: destination)) }
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
    func prefetch(_ index: Int, of objects: [ManagedObject]) throws {
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
            ) { fetched.append(try object(for: $0, of: destination)) }
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
        ) { row in members[row.int64(at: keyColumn), default: []].append(try object(for: row, of: destination)) }
        for owner in owners {
            owner.relations[index] = .toMany(
                (members[owner.primaryKey] ?? []).filter {
                    isMember($0, of: owner, inverse: relationship.inverseIndex)
                })
        }
    }
}
