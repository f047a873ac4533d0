import Foundation
import PersistenceBench

/// `packed`'s time profile, as a profiler keeps one: in `profile/` (`AppendOnlyFiles`, committed by
/// `profile.state`), `samples.rows`, 24-byte rows in time order (timestamp 8 bytes, pid 4, tid 4, stack id 4,
/// 4 reserved, little-endian); `stacks.rows`, 16-byte rows, one per distinct stack, id = row number + 1 (where its
/// frames start in `stacks.frames` 8 bytes, frame count 4, 4 reserved); `stacks.frames`, the addresses, 8 bytes
/// each, leaf first.
///
/// A window binary-searches the timestamps, then walks N rows counting stack ids in an array; each counted stack's
/// leaf is its first frame.
final class PackedProfile {
    private enum File: Int {
        case samples, stacks, frames
    }
    static let sampleRowSize = 24
    static let stackRowSize = 16

    private let storage: AppendOnlyFiles
    /// The distinct stacks, read from the files the first time a write needs them.
    private var interner: StackInterner?

    init(directory: URL, flushes: Bool) throws {
        storage = try AppendOnlyFiles(
            directory: directory, state: "profile.state", magic: "PBPROF",
            files: [("samples.rows", "PBSAMPL"), ("stacks.rows", "PBSTACK"), ("stacks.frames", "PBFRAME")],
            counters: 0, flushes: flushes)
    }

    func close() { storage.close() }

    func flush() throws { try storage.flush() }

    private var sampleCount: Int {
        (storage.lengths[File.samples.rawValue] - FileMagic.headerSize) / Self.sampleRowSize
    }
    private var stackCount: Int { (storage.lengths[File.stacks.rawValue] - FileMagic.headerSize) / Self.stackRowSize }

    private func load<T: FixedWidthInteger>(_ file: File, _ offset: Int, as type: T.Type) -> T {
        T(littleEndian: storage.files[file.rawValue].bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
    }

    private func timestamp(ofSample number: Int) -> Int64 {
        load(.samples, FileMagic.headerSize + number * Self.sampleRowSize, as: Int64.self)
    }

    /// Stack `id`'s frames: where they start in `stacks.frames` and how many there are.
    private func frameRange(ofStack id: Int) throws -> (start: Int, count: Int) {
        guard id >= 1, id <= stackCount else {
            throw PackedError.corrupted(storage.files[File.samples.rawValue].path, "a sample names stack \(id)")
        }
        let row = FileMagic.headerSize + (id - 1) * Self.stackRowSize
        return (Int(load(.stacks, row, as: UInt64.self)), Int(load(.stacks, row + 8, as: UInt32.self)))
    }

    private func frames(ofStack id: Int) throws -> [UInt64] {
        let (start, count) = try frameRange(ofStack: id)
        return StackBytes.decode(
            UnsafeRawBufferPointer(rebasing: storage.files[File.frames.rawValue].bytes[start..<start + 8 * count]))
    }

    func insert(samples: [Sample]) throws {
        guard let first = samples.first else { return }
        if sampleCount > 0, first.timestamp <= timestamp(ofSample: sampleCount - 1) {
            throw PackedError("inserting samples: timestamp \(first.timestamp) is not after the last stored one")
        }
        let interner = try loadedInterner()
        let known = interner.count
        var sampleRows: [UInt8] = []
        sampleRows.reserveCapacity(samples.count * Self.sampleRowSize)
        var stackRows: [UInt8] = []
        var frameBytes: [UInt8] = []
        var previous = Int64.min
        for sample in samples {
            guard sample.timestamp > previous else {
                interner.rollBack(to: known)
                throw PackedError("inserting samples: timestamp \(sample.timestamp) does not ascend")
            }
            previous = sample.timestamp
            let (id, isNew) = interner.id(of: sample.callStack)
            if isNew {
                let start = storage.lengths[File.frames.rawValue] + frameBytes.count
                for field in [UInt64(start), UInt64(sample.callStack.count)] {
                    withUnsafeBytes(of: field.littleEndian) { stackRows.append(contentsOf: $0) }
                }
                frameBytes += StackBytes.encode(sample.callStack)
            }
            withUnsafeBytes(of: sample.timestamp.littleEndian) { sampleRows.append(contentsOf: $0) }
            withUnsafeBytes(of: sample.pid.littleEndian) { sampleRows.append(contentsOf: $0) }
            withUnsafeBytes(of: sample.tid.littleEndian) { sampleRows.append(contentsOf: $0) }
            withUnsafeBytes(of: UInt64(id).littleEndian) { sampleRows.append(contentsOf: $0) }
        }
        do {
            try storage.commit(
                appending: [
                    File.samples.rawValue: sampleRows, File.stacks.rawValue: stackRows,
                    File.frames.rawValue: frameBytes,
                ], counters: [])
        } catch {
            interner.rollBack(to: known)
            throw error
        }
    }

    func topLeafFrames(from timestamp: Int64, samples count: Int, limit: Int) throws -> [FrameCount] {
        var low = 0
        var high = sampleCount
        while low < high {
            let middle = (low + high) / 2
            if self.timestamp(ofSample: middle) < timestamp { low = middle + 1 } else { high = middle }
        }
        var stackCounts = [Int](repeating: 0, count: stackCount + 1)
        let rows = storage.files[File.samples.rawValue].bytes
        for number in low..<min(sampleCount, low + count) {
            let id = Int(
                UInt32(
                    littleEndian: rows.loadUnaligned(
                        fromByteOffset: FileMagic.headerSize + number * Self.sampleRowSize + 16, as: UInt32.self)))
            guard id < stackCounts.count else {
                throw PackedError.corrupted(storage.files[File.samples.rawValue].path, "a sample names stack \(id)")
            }
            stackCounts[id] += 1
        }
        var leafCounts: [UInt64: Int] = [:]
        for (id, samples) in stackCounts.enumerated() where samples > 0 {
            let (start, _) = try frameRange(ofStack: id)
            leafCounts[load(.frames, start, as: UInt64.self), default: 0] += samples
        }
        return FrameCount.top(limit, of: leafCounts)
    }

    func forEachSample(_ body: (Sample) throws -> Void) throws {
        var stacks: [[UInt64]?] = Array(repeating: nil, count: stackCount + 1)
        for number in 0..<sampleCount {
            let row = FileMagic.headerSize + number * Self.sampleRowSize
            let id = Int(load(.samples, row + 16, as: UInt32.self))
            guard id >= 1, id < stacks.count else {
                throw PackedError.corrupted(storage.files[File.samples.rawValue].path, "a sample names stack \(id)")
            }
            let callStack: [UInt64]
            if let known = stacks[id] {
                callStack = known
            } else {
                callStack = try frames(ofStack: id)
                stacks[id] = callStack
            }
            try body(
                Sample(
                    timestamp: load(.samples, row, as: Int64.self), pid: load(.samples, row + 8, as: Int32.self),
                    tid: load(.samples, row + 12, as: Int32.self), callStack: callStack))
        }
    }

    private func loadedInterner() throws -> StackInterner {
        if let interner { return interner }
        let loaded = StackInterner()
        for id in stride(from: 1, through: stackCount, by: 1) {
            loaded.register(try frames(ofStack: id), id: Int64(id))
        }
        interner = loaded
        return loaded
    }
}
