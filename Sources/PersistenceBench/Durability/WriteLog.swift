import Foundation

// MARK: - The recorded writes

/// The changes a writer made to a store's files, in call order, as libWriteRecorder logged them
/// (`Sources/CWriteRecorder/recorder.c` has the format), with the writer's commit reports among them.
package struct WriteLog {
    enum Operation: Equatable {
        /// `file` names one file over its life (a path may be reused by a new file after an unlink).
        case write(file: Int, path: String, offset: Int, data: [UInt8])
        case flush(file: Int)
        case truncate(file: Int, path: String, size: Int)
        case create(file: Int, path: String)
        case makeDirectory(path: String)
        case rename(from: String, to: String)
        case unlink(path: String)
        case directorySync(path: String)
        /// The writer reported this many committed transactions.
        case committed(Int)
        /// The recorder failed this call (fault injection).
        case fault
    }

    var operations: [Operation]
    /// The write calls and the flush calls (`fsync`, `fdatasync`, of files and directories, `msync`) the log holds:
    /// what the fault checks choose among.
    ///
    /// A write through an `O_DSYNC` descriptor flushes without a call, and a page written through a map is written
    /// without one.
    private(set) var writesAndFlushes = (writes: 0, flushes: 0)

    init(operations: [Operation]) { self.operations = operations }

    /// Reads the log at `url`; paths become relative to `directory` (the recorded store's).
    init(contentsOf url: URL, directory: String) throws {
        try self.init(bytes: [UInt8](try Data(contentsOf: url)), path: url.path, directory: directory)
    }

    /// Reads a log's `bytes` (named `path` in errors); paths become relative to `directory`.
    package init(bytes: [UInt8], path: String, directory: String) throws {
        var reader = LogReader(bytes: bytes, path: path, directory: directory)
        var operations: [Operation] = []
        var files: [UInt64: Int] = [:]
        var fileCount = 0
        func file(_ inode: UInt64, new: Bool = false) -> Int {
            if !new, let known = files[inode] { return known }
            fileCount += 1
            files[inode] = fileCount
            return fileCount
        }
        while let record = try reader.next() {
            let (path, inode, position) = (record.path, record.inode, record.position)
            switch record.kind {
            case 1:
                operations.append(.write(file: file(inode), path: path, offset: position, data: record.data))
                writesAndFlushes.writes += 1
            case 2:
                operations.append(.flush(file: file(inode)))
                writesAndFlushes.flushes += 1
            case 3: operations.append(.truncate(file: file(inode), path: path, size: position))
            case 4: operations.append(.create(file: file(inode, new: true), path: path))
            case 5: operations.append(.rename(from: path, to: record.second))
            case 6: operations.append(.unlink(path: path))
            case 7:
                operations.append(.directorySync(path: path))
                writesAndFlushes.flushes += 1
            case 8:
                let numbers = String(decoding: record.data, as: UTF8.self).split(separator: "\n").compactMap { Int($0) }
                if let last = numbers.last { operations.append(.committed(last)) }
            case 9: operations.append(.fault)
            case 10: operations.append(.flush(file: file(inode)))
            case 11: operations.append(.makeDirectory(path: path))
            // Pages an msync flushed from a shared writable map: writes, but no call a fault could fail.
            case 12: operations.append(.write(file: file(inode), path: path, offset: position, data: record.data))
            default: throw BenchError("\(reader.logPath): unknown record kind \(record.kind) at byte \(reader.offset)")
            }
        }
        self.operations = operations
    }

}

// MARK: - What a power cut leaves

/// When a new name (a created file or directory, a rename) survives a power cut.
package enum NewFileRule: String, Codable, Sendable {
    /// POSIX's promise: once its directory was flushed (`fsync` of the directory). What SQLite assumes when it
    /// flushes the directory after creating a journal, and what `json` does after its rename.
    case posix
    /// ext4's behaviour (data=ordered): a created file once the file or its directory was flushed (its flush
    /// commits the journal that holds its directory entry), a created directory once it or its parent was.
    case ext4
}

extension NewFileRule: OptionValue {
    /// `--new-files posix`.
    package init(parsing text: String) throws {
        guard let rule = Self(rawValue: text) else { throw OptionValueError(description: "posix or ext4") }
        self = rule
    }

    package var description: String { rawValue }
}

/// The states a power cut may leave, built from a `WriteLog` the way a file system that reorders unflushed
/// writes may leave them (the model of the crash-consistency checkers ALICE and CrashMonkey).
///
/// A cut after operation `c` keeps every change that was flushed before it: a write or truncation once its file
/// was flushed (`fsync`, `fdatasync`, `msync`, or a write through an `O_SYNC`/`O_DSYNC` descriptor); a creation
/// as `NewFileRule` says, and never before the directory it was made in (if the log made that directory); a
/// rename or unlink once its directory was flushed. Every other change before the cut is pending, writes split
/// into their 4 KiB pages (a disk persists pages, not calls); a crash state keeps any subset of the pending
/// pieces, applied in call order.
struct CrashStates {
    /// One crash state: the operations before `cut`, those durable by then, and the pending pieces chosen.
    struct State: Equatable {
        let cut: Int
        let pending: [Piece]
        /// Transactions the writer had reported committed before the cut.
        let committed: Int
        /// A short name for reports: "cut after operation 41, the first 3 of 7 pending pieces".
        var label: String

        /// The same files: the same cut and pieces, however the state was chosen.
        static func == (a: State, b: State) -> Bool { a.cut == b.cut && a.pending == b.pending }
    }

    /// A pending operation, or one 4 KiB-aligned piece of a pending write.
    struct Piece: Equatable {
        let operation: Int
        let bytes: Range<Int>?
    }

    static let pageSize = 4096

    let log: WriteLog
    /// For each operation, the index of the first later operation that makes it durable (Int.max if none).
    private let durableAt: [Int]

    init(log: WriteLog, newFiles rule: NewFileRule = .posix) {
        self.log = log
        var durableAt = [Int](repeating: Int.max, count: log.operations.count)
        var nextFileFlush: [Int: Int] = [:]
        var nextDirectorySync: [String: Int] = [:]
        func parent(_ path: String) -> String {
            guard let slash = path.lastIndex(of: "/") else { return "." }
            return String(path[..<slash])
        }
        for index in log.operations.indices.reversed() {
            let directorySync = { (path: String) in nextDirectorySync[path] ?? Int.max }
            switch log.operations[index] {
            case .flush(let file): nextFileFlush[file] = index
            case .directorySync(let path): nextDirectorySync[path] = index
            case .write(let file, _, _, _), .truncate(let file, _, _):
                durableAt[index] = nextFileFlush[file] ?? Int.max
            case .create(let file, let path):
                durableAt[index] =
                    rule == .posix
                    ? directorySync(parent(path)) : min(nextFileFlush[file] ?? Int.max, directorySync(parent(path)))
            case .makeDirectory(let path):
                durableAt[index] =
                    rule == .posix ? directorySync(parent(path)) : min(directorySync(path), directorySync(parent(path)))
            case .rename(_, let to):
                durableAt[index] = directorySync(parent(to))
            case .unlink(let path):
                durableAt[index] = directorySync(parent(path))
            case .committed, .fault: break
            }
        }
        // A name made inside a directory the log made lasts no longer than that directory's own entry.
        var madeAt: [String: Int] = [:]
        for index in log.operations.indices {
            let path: String
            switch log.operations[index] {
            case .create(_, let created): path = created
            case .makeDirectory(let made): path = made
            case .rename(_, let to): path = to
            default: continue
            }
            if let made = madeAt[parent(path)] { durableAt[index] = max(durableAt[index], durableAt[made]) }
            if case .makeDirectory = log.operations[index] { madeAt[path] = index }
        }
        self.durableAt = durableAt
    }

    /// Whether operation `index` changes files (and so can be lost).
    private func changesFiles(_ index: Int) -> Bool {
        switch log.operations[index] {
        case .write, .truncate, .create, .makeDirectory, .rename, .unlink: true
        default: false
        }
    }

    /// The pending pieces at a cut after `cut` operations.
    func pendingPieces(at cut: Int) -> [Piece] {
        (0..<cut).filter { changesFiles($0) && durableAt[$0] >= cut }.flatMap { index -> [Piece] in
            guard case .write(_, _, let offset, let data) = log.operations[index] else {
                return [Piece(operation: index, bytes: nil)]
            }
            var pieces: [Piece] = []
            var start = 0
            while start < data.count {
                let pageEnd = ((offset + start) / Self.pageSize + 1) * Self.pageSize - offset
                let end = min(data.count, pageEnd)
                pieces.append(Piece(operation: index, bytes: start..<end))
                start = end
            }
            return pieces
        }
    }

    func committed(before cut: Int) -> Int {
        var latest = 0
        for operation in log.operations[..<cut] { if case .committed(let number) = operation { latest = number } }
        return latest
    }

    /// Which subsets of a cut's pending pieces the states keep.
    enum Family {
        /// Nothing pending kept, everything (what a kill leaves), every prefix (up to 8, then 8 spread), and 4
        /// random subsets.
        case mixed
        /// Every pending piece but one (up to 8, spread): one page did not reach the disk and the rest did, the
        /// tear of a commit whose last write landed (its header, its meta page) while one before it did not.
        case allButOne
        /// The prefixes (up to 8, then 8 spread): a disk that wrote in call order and stopped.
        case prefixes
    }

    // MARK: - Crash states

    /// Seeded crash states, at most `limit`: cuts just before every flush (the most pending), just after every
    /// commit report, and at the end; at each, the subsets of the pending pieces `family` names.
    ///
    /// Only the cuts in `within`, when given.
    func states(
        limit: Int, seed: UInt64, within: ClosedRange<Int>? = nil, family: Family = .mixed
    ) -> [State] {
        var cuts = Set([log.operations.count])
        for (index, operation) in log.operations.enumerated() {
            switch operation {
            case .flush, .directorySync: cuts.insert(index)
            case .committed: cuts.insert(index + 1)
            default: break
            }
        }
        if let within { cuts = cuts.filter { within.contains($0) } }
        var rng = SplitMix64(seed: seed, stream: .crashStates, index: 0)
        var candidates: [State] = []
        for cut in cuts.sorted() {
            let pending = pendingPieces(at: cut)
            let committed = committed(before: cut)
            func add(_ chosen: [Piece], _ what: String) {
                let state = State(
                    cut: cut, pending: chosen, committed: committed,
                    label: "cut after operation \(cut), \(what) of \(pending.count) pending pieces")
                if !candidates.contains(state) { candidates.append(state) }
            }
            let spread = { (count: Int) in count <= 8 ? Array(1...count) : (1...8).map { $0 * count / 8 } }
            switch family {
            case .mixed, .prefixes:
                add([], "none")
                guard !pending.isEmpty else { continue }
                for length in spread(pending.count) { add(Array(pending.prefix(length)), "the first \(length)") }
                guard family == .mixed else { continue }
                for _ in 0..<4 {
                    let subset = pending.filter { _ in rng.below(2) == 0 }
                    add(subset, "a random \(subset.count)")
                }
            case .allButOne:
                guard pending.count > 1 else { continue }
                for missing in spread(pending.count) {
                    var kept = pending
                    kept.remove(at: missing - 1)
                    add(kept, "all but piece \(missing)")
                }
            }
        }
        guard candidates.count > limit else { return candidates }
        // Keep a seeded sample, in log order.
        var indices = Array(candidates.indices)
        for index in stride(from: indices.count - 1, to: 0, by: -1) {
            indices.swapAt(index, Int(rng.below(UInt64(index + 1))))
        }
        return indices.prefix(limit).sorted().map { candidates[$0] }
    }

    // MARK: - Writing a state

    /// Builds `state` in `directory`, a copy of the store as it was before the writer started.
    func materialize(_ state: State, in directory: URL) throws {
        let chosen = Dictionary(grouping: state.pending, by: \.operation)
        for index in 0..<state.cut where changesFiles(index) {
            if durableAt[index] < state.cut {
                try apply(index, bytes: nil, in: directory)
            } else if let pieces = chosen[index] {
                for piece in pieces { try apply(index, bytes: piece.bytes, in: directory) }
            }
        }
    }

    private func apply(_ index: Int, bytes: Range<Int>?, in directory: URL) throws {
        func path(_ relative: String) -> String { directory.appendingPathComponent(relative).path }
        let manager = FileManager.default
        switch log.operations[index] {
        case .write(_, let written, let offset, let data):
            let range = bytes ?? 0..<data.count
            let descriptor = open(path(written), O_WRONLY)
            guard descriptor >= 0 else { return }  // its creation was lost
            defer { close(descriptor) }
            try data[range].withUnsafeBytes {
                try FileSystem.write($0, to: descriptor, at: offset + range.lowerBound, path: path(written))
            }
        case .truncate(_, let file, let size):
            if manager.fileExists(atPath: path(file)) { _ = Glibc.truncate(path(file), off_t(size)) }
        case .create(_, let file):
            let descriptor = open(path(file), O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            if descriptor >= 0 { close(descriptor) }  // else its directory's creation was lost
        case .makeDirectory(let made):
            _ = mkdir(path(made), 0o755)
        case .rename(let from, let to):
            if manager.fileExists(atPath: path(from)) { _ = Glibc.rename(path(from), path(to)) }
        case .unlink(let file):
            if manager.fileExists(atPath: path(file)) { try manager.removeItem(atPath: path(file)) }
        default: break
        }
    }
}

/// Reads a write log's records one at a time: a record is its kind, its path's and second path's lengths, a pad, the
/// file's inode, a position and a length, then the paths and, for writes, commits and mapped pages, the data.
private struct LogReader {
    struct Record {
        var kind: UInt32
        var inode: UInt64
        var position: Int
        /// Relative to the log's directory.
        var path: String
        var second: String
        var data: [UInt8]
    }

    let bytes: [UInt8]
    /// The log's own path, for errors.
    let logPath: String
    /// The directory the log's paths are made relative to, its links resolved.
    let root: String
    private(set) var offset = 0

    init(bytes: [UInt8], path: String, directory: String) {
        (self.bytes, logPath) = (bytes, URL(fileURLWithPath: path).path)
        root = URL(fileURLWithPath: directory).resolvingSymlinksInPath().path
    }

    /// The next record, or nil at the log's end.
    mutating func next() throws -> Record? {
        guard offset < bytes.count else { return nil }
        let kind = try load(UInt32.self)
        let pathLength = Int(try load(UInt32.self))
        let secondLength = Int(try load(UInt32.self))
        _ = try load(UInt32.self)
        let inode = try load(UInt64.self)
        let position = Int(try load(Int64.self))
        let length = Int(try load(Int64.self))
        let path = relative(String(decoding: try take(pathLength), as: UTF8.self))
        let second = relative(String(decoding: try take(secondLength), as: UTF8.self))
        let data = kind == 1 || kind == 8 || kind == 12 ? try take(length) : []
        return Record(kind: kind, inode: inode, position: position, path: path, second: second, data: data)
    }

    private func relative(_ path: String) -> String {
        path == root ? "." : path.hasPrefix(root + "/") ? String(path.dropFirst(root.count + 1)) : path
    }

    private mutating func load<T: FixedWidthInteger>(_: T.Type) throws -> T {
        guard offset + MemoryLayout<T>.size <= bytes.count else {
            throw BenchError("\(logPath): a record is cut off at byte \(offset)")
        }
        let value = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: T.self) }
        offset += MemoryLayout<T>.size
        return T(littleEndian: value)
    }

    private mutating func take(_ count: Int) throws -> [UInt8] {
        // `count` is the log's own (up to Int64.max): compared with what is left, never added to the offset.
        guard count >= 0, count <= bytes.count - offset else {
            throw BenchError("\(logPath): a record is cut off at byte \(offset)")
        }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }
}
