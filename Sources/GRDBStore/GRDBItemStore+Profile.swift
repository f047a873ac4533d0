import Foundation
import GRDB
import PersistenceBench

struct StackRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "stack"
    var id: Int64
    var leaf: Int64
    var frames: Data
}

struct SampleRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "sample"
    var timestamp: Int64
    var pid: Int32
    var tid: Int32
    var stackId: Int64
}

/// A sample row joined with its stack's frames.
struct SampleWithFrames: Decodable, FetchableRecord {
    var timestamp: Int64
    var pid: Int32
    var tid: Int32
    var frames: Data
}

extension GRDBItemStore: ProfileStore {
    static func registerProfileMigration(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("create profile") { db in
            try db.create(table: "stack") { t in
                t.primaryKey("id", .integer)
                t.column("leaf", .integer).notNull()
                t.column("frames", .blob).notNull()
            }
            try db.create(table: "sample") { t in
                t.primaryKey("timestamp", .integer)
                t.column("pid", .integer).notNull()
                t.column("tid", .integer).notNull()
                // No index: no query looks samples up by stack, and at 100M samples it would double the writes.
                t.belongsTo("stack", indexed: false).notNull()
            }
        }
    }

    package func insert(samples: [Sample]) throws {
        let interner = try stackInterner()
        let known = interner.count
        do {
            try database.write { db in
                for sample in samples {
                    let (stackID, isNew) = interner.id(of: sample.callStack)
                    if isNew {
                        try StackRecord(
                            id: stackID, leaf: Int64(bitPattern: sample.leafFrame),
                            frames: Data(StackBytes.encode(sample.callStack))
                        ).insert(db)
                    }
                    try SampleRecord(timestamp: sample.timestamp, pid: sample.pid, tid: sample.tid, stackId: stackID)
                        .insert(db)
                }
            }
        } catch {
            interner.rollBack(to: known)
            throw error
        }
    }

    /// One SQL request with GRDB's SQL interpolation (`grdb+statements`: a cached statement): the window by
    /// primary key, joined, grouped by leaf.
    package func topLeafFrames(from timestamp: Int64, samples count: Int, limit: Int) throws -> [FrameCount] {
        try database.read { db in
            let rows: [Row]
            switch flavor {
            case .records, .codable:
                let request: SQLRequest<Row> = """
                    SELECT stack.leaf, COUNT(*) AS samples FROM \
                    (SELECT stackId FROM sample WHERE timestamp >= \(timestamp) ORDER BY timestamp LIMIT \(count)) \
                    AS window JOIN stack ON stack.id = window.stackId \
                    GROUP BY stack.leaf ORDER BY samples DESC, stack.leaf LIMIT \(limit)
                    """
                rows = try request.fetchAll(db)
            case .statements:
                rows = try Row.fetchAll(
                    db.cachedStatement(
                        sql: "SELECT stack.leaf, COUNT(*) AS samples FROM "
                            + "(SELECT stackId FROM sample WHERE timestamp >= ? ORDER BY timestamp LIMIT ?) "
                            + "AS window JOIN stack ON stack.id = window.stackId "
                            + "GROUP BY stack.leaf ORDER BY samples DESC, stack.leaf LIMIT ?"),
                    arguments: [timestamp, count, limit])
            }
            return rows.map { row in FrameCount(frame: UInt64(bitPattern: row["leaf"]), samples: row["samples"]) }
        }
    }

    package func forEachSample(_ body: (Sample) throws -> Void) throws {
        try database.read { db in
            let cursor = try SampleWithFrames.fetchCursor(
                db,
                sql: "SELECT sample.timestamp, sample.pid, sample.tid, stack.frames FROM sample "
                    + "JOIN stack ON stack.id = sample.stackId ORDER BY sample.timestamp")
            while let row = try cursor.next() {
                try body(
                    Sample(
                        timestamp: row.timestamp, pid: row.pid, tid: row.tid,
                        callStack: row.frames.withUnsafeBytes { StackBytes.decode($0) }))
            }
        }
    }

    private func stackInterner() throws -> StackInterner {
        if let profileStacks { return profileStacks }
        let interner = StackInterner()
        for stack in try database.read({ try StackRecord.fetchAll($0) }) {
            interner.register(stack.frames.withUnsafeBytes { StackBytes.decode($0) }, id: stack.id)
        }
        profileStacks = interner
        return interner
    }
}
