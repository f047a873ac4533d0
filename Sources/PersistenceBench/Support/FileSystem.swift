import Foundation

/// File helpers shared by the stores and the runner.
public enum FileSystem {
    // MARK: - Sizes

    /// The sum of the logical sizes of the regular files under `directory`.
    package static func logicalSize(of directory: URL) throws -> Int64 {
        try regularFiles(under: directory).reduce(0) { total, file in
            total + Int64(try file.resourceValues(forKeys: [.fileSizeKey]).fileSize ?? 0)
        }
    }

    /// The bytes the regular files under `directory` take on disk (their allocated blocks: a hole takes none).
    package static func allocatedSize(of directory: URL) throws -> Int64 {
        try regularFiles(under: directory).reduce(0) { total, file in
            var status = stat()
            guard lstat(file.path, &status) == 0 else { throw BenchError.system("stat \(file.path)") }
            return total + Int64(status.st_blocks) * 512
        }
    }

    /// Every regular file under `directory`, by its path relative to it, with its logical size.
    package static func fileSizes(under directory: URL) throws -> [String: Int64] {
        let base = directory.standardizedFileURL.path + "/"
        var sizes: [String: Int64] = [:]
        for file in try regularFiles(under: directory) {
            let path = file.standardizedFileURL.path
            let name = path.hasPrefix(base) ? String(path.dropFirst(base.count)) : file.lastPathComponent
            sizes[name] = Int64(try file.resourceValues(forKeys: [.fileSizeKey]).fileSize ?? 0)
        }
        return sizes
    }

    // MARK: - Creating, writing and removing

    /// Creates `directory` and its parents if missing.
    public static func makeDirectory(_ directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// Creates `directory` and any missing parent, and flushes the parent of each directory it created: under
    /// POSIX's rule a new directory survives a power cut only once its parent is flushed, and the files a store
    /// flushes in it would be lost with it.
    package static func makeDirectoryDurably(_ directory: URL) throws {
        var missing: [URL] = []
        var level = directory.standardizedFileURL
        while !FileManager.default.fileExists(atPath: level.path), level.path != "/" {
            missing.append(level)
            level = level.deletingLastPathComponent()
        }
        try makeDirectory(directory)
        for created in missing.reversed() { try syncDirectory(created.deletingLastPathComponent()) }
    }

    /// Removes `url` if it exists: a symbolic link as the link, never what it points to; a directory with everything
    /// in it, the links inside it removed as links.
    public static func remove(_ url: URL) throws {
        var status = stat()
        guard lstat(url.path, &status) == 0 else { return }
        if status.st_mode & S_IFMT == S_IFDIR {
            for entry in try FileManager.default.contentsOfDirectory(atPath: url.path) {
                try remove(url.appendingPathComponent(entry))
            }
            guard rmdir(url.path) == 0 else { throw BenchError.system("cannot remove \(url.path)") }
        } else {
            guard unlink(url.path) == 0 else { throw BenchError.system("cannot remove \(url.path)") }
        }
    }

    /// Writes `data` to a temporary file beside `url`, then renames it over `url`: readers never see half a file.
    package static func writeAtomically(_ data: Data, to url: URL) throws {
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).tmp")
        // Written with `write(_:to:at:path:)`'s loop, not `Data.write(to:)`: `memory`'s 2.1 GB dump of 10k
        // attachments, written by Foundation here, read back as garbage (a count of 4142705746529234072).
        do {
            try withDescriptor(of: temporary, flags: O_WRONLY | O_CREAT | O_TRUNC) { descriptor in
                try data.withUnsafeBytes { try write($0, to: descriptor, at: 0, path: temporary.path) }
            }
            if rename(temporary.path, url.path) != 0 {
                throw BenchError.system("cannot rename \(temporary.path) to \(url.path)")
            }
        } catch {
            // A full disk leaves no half-written temporary beside the file.
            unlink(temporary.path)
            throw error
        }
    }
}

extension FileSystem {
    /// Writes all of `bytes` at `offset` of an open file with `pwrite`, retrying short and interrupted writes.
    package static func write(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32, at offset: Int, path: String)
        throws
    {
        guard let base = bytes.baseAddress else { return }
        var done = 0
        while done < bytes.count {
            let count = pwrite(descriptor, base + done, bytes.count - done, off_t(offset + done))
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw BenchError.system("writing \(path)") }
            done += count
        }
    }

    /// Writes `data` to a temporary file beside `url`, flushes it, renames it over `url` and flushes the
    /// directory: after a crash, `url` holds either its old contents or all of the new.
    package static func writeDurably(_ data: Data, to url: URL) throws {
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).tmp")
        do {
            try withDescriptor(of: temporary, flags: O_WRONLY | O_CREAT | O_TRUNC) { descriptor in
                try data.withUnsafeBytes { try write($0, to: descriptor, at: 0, path: temporary.path) }
                guard fsync(descriptor) == 0 else {
                    throw BenchError.system("flushing \(temporary.path)")
                }
            }
            if rename(temporary.path, url.path) != 0 {
                throw BenchError.system("cannot rename \(temporary.path) to \(url.path)")
            }
        } catch {
            unlink(temporary.path)
            throw error
        }
        try syncDirectory(url.deletingLastPathComponent())
    }

    // MARK: - Copying a fixture into a cell

    /// Copies a fixture's directory for one cell, flushing each copied file, then drops the source from the page
    /// cache.
    ///
    /// The cell then starts with its own files cached (as far as memory allows) and no writeback of the copy
    /// pending, which would otherwise compete with its timed phase for the disk. Copied in 1 MiB reads and writes:
    /// `FileManager.copyItem` copies through `sendfile` 4 KiB at a time, three times slower (a 20 MB store:
    /// 35–47 ms against 10–14 ms, before the flush).
    ///
    /// With `sparse`, a file's holes stay holes (`verify`'s copy of a file with holes, which would otherwise take
    /// the disk its logical size).
    public static func copyForCell(from source: URL, to destination: URL, sparse: Bool = false) throws {
        try makeDirectory(destination)
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        for name in try FileManager.default.contentsOfDirectory(atPath: source.path).sorted() {
            let from = source.appendingPathComponent(name)
            let to = destination.appendingPathComponent(name)
            let type = try FileManager.default.attributesOfItem(atPath: from.path)[.type] as? FileAttributeType
            switch type {
            case .typeDirectory?:
                try copyForCell(from: from, to: to, sparse: sparse)
            case .typeRegular?:
                try copyFile(from: from, to: to, buffer: &buffer, sparse: sparse)
            default:
                throw BenchError("cannot copy \(from.path): neither a regular file nor a directory")
            }
        }
    }

    /// Copies one regular file (the copy created new, mode 0644), flushes the copy, and drops the source from the
    /// page cache (advice only: pages that cannot be dropped stay, and the copy is still correct).
    private static func copyFile(from source: URL, to destination: URL, buffer: inout [UInt8], sparse: Bool) throws {
        try withDescriptor(of: source, flags: O_RDONLY) { input in
            try withDescriptor(of: destination, flags: O_WRONLY | O_CREAT | O_EXCL) { output in
                var status = stat()
                guard fstat(input, &status) == 0 else { throw BenchError.system("stat \(source.path)") }
                let size = Int(status.st_size)
                var offset = 0
                while offset < size {
                    // With `sparse`, the next extent of data (Linux's SEEK_DATA and SEEK_HOLE, which glibc declares
                    // only under _GNU_SOURCE); a file system that reports no holes reports all of it as data.
                    var end = size
                    if sparse {
                        let data = Int(lseek(input, off_t(offset), 3))
                        guard data >= 0 else { break }
                        offset = data
                        end = min(size, max(offset, Int(lseek(input, off_t(offset), 4))))
                    }
                    try copyRange(from: input, to: output, offset..<end, buffer: &buffer, paths: (source, destination))
                    offset = end
                }
                // A hole at the end is a length, not a write.
                guard ftruncate(output, off_t(size)) == 0 else {
                    throw BenchError.system("sizing \(destination.path)")
                }
                guard fsync(output) == 0 else {
                    throw BenchError.system("flushing \(destination.path)")
                }
            }
            _ = posix_fadvise(input, 0, 0, POSIX_FADV_DONTNEED)
        }
    }

    /// Copies `range` of one open file to the same offsets of another, 1 MiB a read.
    private static func copyRange(
        from input: Int32, to output: Int32, _ range: Range<Int>, buffer: inout [UInt8], paths: (URL, URL)
    ) throws {
        var offset = range.lowerBound
        while offset < range.upperBound {
            let wanted = min(buffer.count, range.upperBound - offset)
            let count = buffer.withUnsafeMutableBytes { pread(input, $0.baseAddress, wanted, off_t(offset)) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw BenchError.system("reading \(paths.0.path)") }
            if count == 0 { break }
            try buffer.withUnsafeBytes {
                try write(UnsafeRawBufferPointer(rebasing: $0[..<count]), to: output, at: offset, path: paths.1.path)
            }
            offset += count
        }
    }

    // MARK: - The page cache

    /// Drops every file under `directory` from the page cache: flushed first, then `posix_fadvise(DONTNEED)`,
    /// which any process may ask for a file it can open, root or not.
    ///
    /// Advice: pages another process maps stay.
    package static func dropFromPageCache(_ directory: URL) throws {
        for file in try regularFiles(under: directory) {
            try withDescriptor(of: file, flags: O_RDONLY) { descriptor in
                guard fsync(descriptor) == 0 else {
                    throw BenchError.system("flushing \(file.path)")
                }
                _ = posix_fadvise(descriptor, 0, 0, POSIX_FADV_DONTNEED)
            }
        }
    }

    /// Bytes of the files under `directory` that are in the page cache now (`mincore`, by page).
    package static func cachedBytes(under directory: URL) throws -> Int64 {
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        var cached: Int64 = 0
        for file in try regularFiles(under: directory) {
            try withDescriptor(of: file, flags: O_RDONLY) { descriptor in
                var status = stat()
                guard fstat(descriptor, &status) == 0, status.st_size > 0 else { return }
                let length = Int(status.st_size)
                guard let map = mmap(nil, length, PROT_READ, MAP_SHARED, descriptor, 0), map != MAP_FAILED else {
                    throw BenchError.system("cannot map \(file.path)")
                }
                defer { munmap(map, length) }
                var resident = [UInt8](repeating: 0, count: (length + pageSize - 1) / pageSize)
                guard mincore(map, length, &resident) == 0 else {
                    throw BenchError.system("mincore of \(file.path)")
                }
                cached += Int64(resident.filter { $0 & 1 != 0 }.count * pageSize)
            }
        }
        return cached
    }

    static func regularFiles(under directory: URL) throws -> [URL] {
        guard
            let enumerator = FileManager.default.enumerator(
                at: directory, includingPropertiesForKeys: [.isRegularFileKey, .fileSizeKey])
        else { throw BenchError("cannot list \(directory.path)") }
        var files: [URL] = []
        for case let url as URL in enumerator
        where try url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true {
            files.append(url)
        }
        return files
    }

    /// Opens `file` (created with mode 0644 when `flags` has `O_CREAT`), runs `body`, and closes it.
    static func withDescriptor(of file: URL, flags: Int32, _ body: (Int32) throws -> Void) throws {
        let descriptor = open(file.path, flags | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw BenchError.system("cannot open \(file.path)") }
        defer { close(descriptor) }
        try body(descriptor)
    }

    /// Flushes a file's data and size to disk (`fsync`).
    package static func syncFile(_ file: URL) throws {
        try withDescriptor(of: file, flags: O_RDONLY) { descriptor in
            guard fsync(descriptor) == 0 else { throw BenchError.system("flushing \(file.path)") }
        }
    }

    /// Flushes a directory's entries (new, renamed or removed files) to disk.
    package static func syncDirectory(_ directory: URL) throws {
        let descriptor = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw BenchError.system("cannot open \(directory.path)")
        }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else {
            throw BenchError.system("flushing \(directory.path)")
        }
    }
}

/// The core's error: a message that names what failed.
extension FileSystem {
    // MARK: - Errors and reports

    /// Writes a child process's JSON report for its parent.
    ///
    /// If that fails (a full disk), says so on standard error and returns false.
    package static func writeReport(_ report: some Encodable, to path: String) -> Bool {
        do {
            try writeAtomically(try JSONEncoder().encode(report), to: URL(fileURLWithPath: path))
            return true
        } catch {
            // The throwing write: the legacy `write(_:)` traps when the output's disk is full.
            try? FileHandle.standardError.write(contentsOf: Data("cannot write \(path): \(error)\n".utf8))
            return false
        }
    }
}

extension FileSystem {
    /// The system's reason a file operation failed ("No such file or directory"), not Foundation's sentence
    /// ("The operation could not be completed").
    package static func cause(of error: any Error) -> String {
        guard let cocoa = error as? CocoaError else { return "\(error)" }
        if let underlying = cocoa.underlying.map({ $0 as NSError }), underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return cocoa.localizedDescription
    }

    /// An error in one line: Foundation's file errors by their path and system cause.
    package static func describe(_ error: any Error) -> String {
        guard let cocoa = error as? CocoaError else { return "\(error)" }
        return cocoa.filePath.map { "\($0): \(cause(of: error))" } ?? cause(of: error)
    }
}
