import Foundation
import PersistenceBench
import SQLiteSupport

/// `sqlite`'s time profile: `sample` keyed by its timestamp (the rowid, so a seek is a B-tree descent) pointing at
/// `stack`, which holds each distinct call stack once (its frames as a blob of little-endian addresses, its leaf
/// frame as a column). The ingest interns stacks in memory; the window is one query: the next N samples by
/// rowid, joined to their stacks, grouped by leaf.
extension SQLiteItemStore: ProfileStore {
    static let profileSchema = """
        CREATE TABLE IF NOT EXISTS "stack" ("id" INTEGER PRIMARY KEY, "leaf" INTEGER NOT NULL, \
        "frames" BLOB NOT NULL);
        CREATE TABLE IF NOT EXISTS "sample" ("timestamp" INTEGER PRIMARY KEY, "pid" INTEGER NOT NULL, \
        "tid" INTEGER NOT NULL, "stackId" INTEGER NOT NULL REFERENCES "stack"("id"));
        """
    static let topLeafFramesSQL = """
        SELECT stack.leaf, COUNT(*) AS samples FROM \
        (SELECT stackId FROM sample WHERE timestamp >= ? ORDER BY timestamp LIMIT ?) AS window \
        JOIN stack ON stack.id = window.stackId GROUP BY stack.leaf ORDER BY samples DESC, stack.leaf LIMIT ?
        """

    package func insert(samples: [Sample]) throws {
        let interner = try stackInterner()
        let known = interner.count
        do {
            try connection.transaction {
                let insertStack = try connection.prepare("INSERT INTO stack (id, leaf, frames) VALUES (?, ?, ?)")
                let insertSample = try connection.prepare(
                    "INSERT INTO sample (timestamp, pid, tid, stackId) VALUES (?, ?, ?, ?)")
                defer { [insertStack, insertSample].forEach { $0.finalize() } }
                for sample in samples {
                    let (stackID, isNew) = interner.id(of: sample.callStack)
                    if isNew {
                        insertStack.bind(stackID, at: 1)
                        insertStack.bind(Int64(bitPattern: sample.leafFrame), at: 2)
                        insertStack.bindCopy(StackBytes.encode(sample.callStack), at: 3)
                        defer { insertStack.reset() }
                        _ = try insertStack.step()
                    }
                    insertSample.bind(sample.timestamp, at: 1)
                    insertSample.bind(Int64(sample.pid), at: 2)
                    insertSample.bind(Int64(sample.tid), at: 3)
                    insertSample.bind(stackID, at: 4)
                    defer { insertSample.reset() }
                    _ = try insertSample.step()
                }
            }
        } catch {
            interner.rollBack(to: known)
            throw error
        }
    }

    package func topLeafFrames(from timestamp: Int64, samples count: Int, limit: Int) throws -> [FrameCount] {
        let statement = try connection.prepare(Self.topLeafFramesSQL)
        defer { statement.finalize() }
        statement.bind(timestamp, at: 1)
        statement.bind(Int64(count), at: 2)
        statement.bind(Int64(limit), at: 3)
        var top: [FrameCount] = []
        while try statement.step() {
            top.append(
                FrameCount(frame: UInt64(bitPattern: statement.int64(at: 0)), samples: Int(statement.int64(at: 1))))
        }
        return top
    }

    package func forEachSample(_ body: (Sample) throws -> Void) throws {
        let statement = try connection.prepare(
            "SELECT sample.timestamp, sample.pid, sample.tid, stack.frames FROM sample "
                + "JOIN stack ON stack.id = sample.stackId ORDER BY sample.timestamp")
        defer { statement.finalize() }
        while try statement.step() {
            try body(
                Sample(
                    timestamp: statement.int64(at: 0), pid: Int32(statement.int64(at: 1)),
                    tid: Int32(statement.int64(at: 2)),
                    callStack: statement.blob(at: 3).withUnsafeBytes { StackBytes.decode($0) }))
        }
    }

    /// The stacks stored so far, read once per open store.
    private func stackInterner() throws -> StackInterner {
        if let profileStacks { return profileStacks }
        let interner = StackInterner()
        let statement = try connection.prepare("SELECT id, frames FROM stack")
        defer { statement.finalize() }
        while try statement.step() {
            interner.register(
                statement.blob(at: 1).withUnsafeBytes { StackBytes.decode($0) }, id: statement.int64(at: 0))
        }
        profileStacks = interner
        return interner
    }
}
