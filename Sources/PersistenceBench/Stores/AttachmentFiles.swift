import Foundation

/// Large values kept as files beside a store, each named in the store's row (`sqlite+files`, the ORM's external
/// storage): the way an app keeps photos next to its database.
///
/// The order that keeps a committed record whole after a crash: a value's file is written and flushed, and its
/// directory flushed (`flush()`), before the transaction that names it commits; a file replaced or deleted is
/// removed only after the commit that stops naming it. A crash between the two leaves a file no row names, which
/// `removeOrphans(keeping:)` deletes at the next open.
package final class AttachmentFiles {
    package let directory: URL
    /// Files written since the last `flush()`, whose entries are not yet durable.
    private var unflushed = false
    private var generator = SystemRandomNumberGenerator()

    package init(directory: URL) throws {
        self.directory = directory
        try FileSystem.makeDirectoryDurably(directory)
    }

    /// Writes `bytes` to a new file, flushed; returns its name (`label`, the record's id, and a random part, so
    /// that a replaced value never reuses its predecessor's name).
    ///
    /// The directory is flushed by the next `flush()`.
    package func write(_ bytes: [UInt8], label: String) throws -> String {
        let name = "\(label)-\(String(generator.next() as UInt64, radix: 36))"
        let path = directory.appendingPathComponent(name)
        try FileSystem.withDescriptor(of: path, flags: O_WRONLY | O_CREAT | O_EXCL) { descriptor in
            try bytes.withUnsafeBytes { try FileSystem.write($0, to: descriptor, at: 0, path: path.path) }
            guard fsync(descriptor) == 0 else { throw BenchError.system("flushing \(path.path)") }
        }
        unflushed = true
        return name
    }

    /// Makes the entries of the files written since the last flush durable: before the commit that names them.
    package func flush() throws {
        guard unflushed else { return }
        try FileSystem.syncDirectory(directory)
        unflushed = false
    }

    /// The bytes of the file `name`.
    package func read(_ name: String) throws -> [UInt8] {
        let path = directory.appendingPathComponent(name).path
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw BenchError.system("cannot open attachment \(path)") }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw BenchError.system("cannot stat attachment \(path)") }
        let size = Int(status.st_size)
        return try [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            guard let base = buffer.baseAddress else { return }
            var done = 0
            while done < size {
                let count = pread(descriptor, base + done, size - done, off_t(done))
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { throw BenchError.system("reading attachment \(path)") }
                done += count
            }
            initialized = size
        }
    }

    /// Removes the file `name`, after the commit that stopped naming it.
    ///
    /// Its entry's removal need not be durable: a file that comes back after a crash is an orphan the next open
    /// removes.
    package func remove(_ name: String) {
        unlink(directory.appendingPathComponent(name).path)
    }

    /// Removes every file whose name `named` does not hold, and flushes the directory: the files of transactions
    /// that never committed, and of values replaced or deleted before a crash.
    ///
    /// Returns how many it removed.
    @discardableResult
    package func removeOrphans(keeping named: Set<String>) throws -> Int {
        var removed = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) where !named.contains(name) {
            remove(name)
            removed += 1
        }
        if removed > 0 { try FileSystem.syncDirectory(directory) }
        return removed
    }
}
