import CLMDB
import Foundation
import PersistenceBench

/// `lmdb`'s time profile: `sample` (timestamp key, as `ItemCodec`'s id keys → pid, tid and stack id, 4 bytes each,
/// little-endian), appended in key order with `MDB_APPEND`; `stack` (stack id key → leaf frame, 8 bytes, then
/// the frames, 8 bytes each).
///
/// A window is a cursor seek (`MDB_SET_RANGE`) and N steps, counting stack ids, then one lookup per distinct stack for
/// its leaf.
struct LMDBProfileDatabases {
    let samples: LMDBDatabase
    let stacks: LMDBDatabase

    static let count: UInt32 = 2
    static let sampleValueSize = 12

    init(in environment: LMDBEnvironment) throws {
        samples = try environment.openDatabase("sample")
        stacks = try environment.openDatabase("stack")
    }
}

extension LMDBItemStore: ProfileStore {
    package func insert(samples: [Sample]) throws {
        let interner = try stackInterner()
        let known = interner.count
        do {
            try environment.write { transaction in
                for sample in samples {
                    let (stackID, isNew) = interner.id(of: sample.callStack)
                    if isNew {
                        let frames = StackBytes.encode(sample.callStack)
                        try ItemCodec.withKey(stackID) { key in
                            let value = try transaction.reserve(
                                in: profile.stacks, key: key, count: 8 + frames.count, flags: MDB_NOOVERWRITE)
                            value.storeBytes(of: sample.leafFrame.littleEndian, as: UInt64.self)
                            UnsafeMutableRawBufferPointer(rebasing: value[8...]).copyBytes(from: frames)
                        }
                    }
                    try ItemCodec.withKey(sample.timestamp) { key in
                        let value = try transaction.reserve(
                            in: profile.samples, key: key, count: LMDBProfileDatabases.sampleValueSize,
                            flags: MDB_APPEND)
                        value.storeBytes(of: sample.pid.littleEndian, toByteOffset: 0, as: Int32.self)
                        value.storeBytes(of: sample.tid.littleEndian, toByteOffset: 4, as: Int32.self)
                        value.storeBytes(of: UInt32(stackID).littleEndian, toByteOffset: 8, as: UInt32.self)
                    }
                }
            }
        } catch {
            interner.rollBack(to: known)
            throw error
        }
    }

    package func topLeafFrames(from timestamp: Int64, samples count: Int, limit: Int) throws -> [FrameCount] {
        try environment.read { transaction in
            var stackCounts: [UInt32: Int] = [:]
            try transaction.withCursor(on: profile.samples) { cursor in
                var entry = try ItemCodec.withKey(timestamp) { try cursor.move(MDB_SET_RANGE, key: $0) }
                var seen = 0
                while let row = entry, seen < count {
                    guard row.value.count == LMDBProfileDatabases.sampleValueSize else {
                        throw LMDBError.corrupted("reading samples", "a value of \(row.value.count) bytes")
                    }
                    stackCounts[
                        UInt32(littleEndian: row.value.loadUnaligned(fromByteOffset: 8, as: UInt32.self)),
                        default: 0] += 1
                    seen += 1
                    entry = try cursor.move(MDB_NEXT)
                }
            }
            var leafCounts: [UInt64: Int] = [:]
            for (stackID, samples) in stackCounts {
                leafCounts[try storedStack(Int64(stackID), in: transaction).leaf, default: 0] += samples
            }
            return FrameCount.top(limit, of: leafCounts)
        }
    }

    package func forEachSample(_ body: (Sample) throws -> Void) throws {
        try environment.read { transaction in
            var frames: [UInt32: [UInt64]] = [:]
            try transaction.withCursor(on: profile.samples) { cursor in
                var entry = try cursor.move(MDB_FIRST)
                while let row = entry {
                    let stackID = UInt32(littleEndian: row.value.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
                    let callStack: [UInt64]
                    if let known = frames[stackID] {
                        callStack = known
                    } else {
                        callStack = try storedStack(Int64(stackID), in: transaction).frames
                        frames[stackID] = callStack
                    }
                    try body(
                        Sample(
                            timestamp: ItemCodec.id(fromKey: row.key),
                            pid: Int32(littleEndian: row.value.loadUnaligned(fromByteOffset: 0, as: Int32.self)),
                            tid: Int32(littleEndian: row.value.loadUnaligned(fromByteOffset: 4, as: Int32.self)),
                            callStack: callStack))
                    entry = try cursor.move(MDB_NEXT)
                }
            }
        }
    }

    private func storedStack(_ id: Int64, in transaction: LMDBTransaction) throws -> (leaf: UInt64, frames: [UInt64]) {
        guard let value = try ItemCodec.withKey(id, { try transaction.value(in: profile.stacks, forKey: $0) }),
            value.count >= 16
        else { throw LMDBError.corrupted("reading stack \(id)", "a sample names it; it is not stored") }
        return (
            UInt64(littleEndian: value.loadUnaligned(as: UInt64.self)),
            StackBytes.decode(UnsafeRawBufferPointer(rebasing: value[8...]))
        )
    }

    private func stackInterner() throws -> StackInterner {
        if let profileStacks { return profileStacks }
        let interner = StackInterner()
        try environment.read { transaction in
            try transaction.withCursor(on: profile.stacks) { cursor in
                var entry = try cursor.move(MDB_FIRST)
                while let row = entry {
                    interner.register(
                        StackBytes.decode(UnsafeRawBufferPointer(rebasing: row.value[8...])),
                        id: try ItemCodec.id(fromKey: row.key))
                    entry = try cursor.move(MDB_NEXT)
                }
            }
        }
        profileStacks = interner
        return interner
    }
}
