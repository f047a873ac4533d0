import Foundation
import PersistenceBench

/// A file read through a shared, read-only memory map and written with `pwrite`.
///
/// On Linux the page cache is shared between the two, so a `pwrite` is visible through the map at once. The map
/// covers a capacity at least the file's length, doubled as the file grows, so that appends rarely remap; only
/// bytes below the file's length may be read. Pointers into the map are valid until the next `write` or `close`,
/// unless the caller holds on to the `mapping` they came from: a reader on another thread keeps reading through
/// its mapping while the writer remaps the file.
final class MappedFile {
    let path: String
    private var descriptor: Int32
    private(set) var length: Int
    /// The current map; replaced (not unmapped under its other holders) when the file outgrows it.
    private(set) var mapping: Mapping?
    /// Whether `sync()` flushes: false for `packed+nosync`, whose commits flush nothing (`flush()` still does).
    let flushes: Bool
    /// Whether every map of the file is advised `MADV_RANDOM` (`packed+random`): a fault reads its page alone, not
    /// the kernel's read-ahead window around it.
    let randomAccess: Bool

    /// Opens the files `names` in `directory`, creating the directory and the files that are missing.
    ///
    /// With `flushes`, what it created is durable by name before it returns: POSIX promises a new name only once its
    /// directory is flushed (a new directory's own name, once its parent is), whatever the files' own flushes.
    static func openAll(_ names: [String], in directory: URL, flushes: Bool, randomAccess: Bool = false) throws
        -> [MappedFile]
    {
        let makesDirectory = !FileManager.default.fileExists(atPath: directory.path)
        let paths = names.map { directory.appendingPathComponent($0).path }
        let creates = makesDirectory || paths.contains { !FileManager.default.fileExists(atPath: $0) }
        try FileSystem.makeDirectory(directory)
        let files = try paths.map {
            try MappedFile(path: $0, create: true, flushes: flushes, randomAccess: randomAccess)
        }
        if creates && flushes { try FileSystem.syncDirectory(directory) }
        if makesDirectory && flushes { try FileSystem.syncDirectory(directory.deletingLastPathComponent()) }
        return files
    }

    /// Opens `path`, creating an empty file when `create` is set and it does not exist.
    init(path: String, create: Bool, flushes: Bool = true, randomAccess: Bool = false) throws {
        self.path = path
        self.flushes = flushes
        self.randomAccess = randomAccess
        descriptor = open(path, O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0), 0o644)
        guard descriptor >= 0 else { throw PackedError.system("open", path) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let code = errno
            Foundation.close(descriptor)
            throw PackedError.system("fstat", path, errno: code)
        }
        length = Int(status.st_size)
        try remapIfNeeded()
    }

    deinit { close() }

    func close() {
        mapping = nil
        if descriptor >= 0 { Foundation.close(descriptor) }
        descriptor = -1
    }

    /// The first `length` bytes, through the map.
    var bytes: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: mapping?.address, count: length)
    }

    /// Writes `data` at `offset` (growing the file if it ends beyond it).
    func write(_ data: UnsafeRawBufferPointer, at offset: Int) throws {
        try FileSystem.write(data, to: descriptor, at: offset, path: path)
        length = max(length, offset + data.count)
        try remapIfNeeded()
    }

    /// Sets the file's length: zeros when it grows (a sparse extension), dropped bytes when it shrinks.
    func truncate(to newLength: Int) throws {
        guard ftruncate(descriptor, off_t(newLength)) == 0 else { throw PackedError.system("ftruncate", path) }
        length = newLength
        try remapIfNeeded()
    }

    /// A commit's flush of the file's data (`fdatasync`): on disk before this returns, unless the file was opened
    /// not to flush.
    func sync() throws {
        if flushes { try flush() }
    }

    /// Flushes the file's data to the disk (`fdatasync`), whatever `flushes` says: a clean close's flush.
    func flush() throws {
        guard fdatasync(descriptor) == 0 else { throw PackedError.system("fdatasync", path) }
    }

    private func remapIfNeeded() throws {
        guard length > mapping?.capacity ?? -1 else { return }
        var capacity = max(mapping?.capacity ?? 0, 1 << 20)
        while capacity < length { capacity *= 2 }
        mapping = nil
        mapping = try Mapping(descriptor: descriptor, capacity: capacity, path: path, randomAccess: randomAccess)
    }
}

/// One read-only, shared `mmap` of a file, unmapped when its last holder lets it go.
final class Mapping: @unchecked Sendable {
    let address: UnsafeMutableRawPointer
    let capacity: Int

    init(descriptor: Int32, capacity: Int, path: String, randomAccess: Bool) throws {
        guard let mapped = mmap(nil, capacity, PROT_READ, MAP_SHARED, descriptor, 0), mapped != MAP_FAILED else {
            throw PackedError.system("mmap", path)
        }
        if randomAccess, madvise(mapped, capacity, MADV_RANDOM) != 0 {
            let code = errno
            munmap(mapped, capacity)
            throw PackedError.system("madvise(MADV_RANDOM)", path, errno: code)
        }
        address = mapped
        self.capacity = capacity
    }

    deinit { munmap(address, capacity) }

    /// The first `count` bytes.
    func bytes(_ count: Int) -> UnsafeRawBufferPointer {
        precondition(count <= capacity, "reading \(count) bytes of a \(capacity)-byte map")
        return UnsafeRawBufferPointer(start: address, count: count)
    }
}
