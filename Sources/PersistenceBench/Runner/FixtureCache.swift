import Foundation

/// Fixtures kept between runs: each store's fixture at a scale loaded once, checked, and copied into every cell
/// that starts from it, in this run and later ones (`run --fixtures DIR`).
///
/// An entry is a directory under `root` named by its key (`Key.name`) holding the store's files in `files/` and
/// `entry.json` (`Entry`: the key, the files' bytes and content digest, what checked them, when it was built and last
/// used). Before an entry is reused its files are read again and must give the digest they had when they were built
/// and checked: a byte changed since (a cell that wrote to its fixture, a disk's fault, a hand) and the entry is built
/// again. Entries past `capBytes` are evicted least recently used first, never one this cache handed out since its
/// last `release()`; only directories with an `entry.json` are ever removed, nothing else under `root`. Each entry's
/// build and check hold a lock (`flock` on `<name>.lock` beside it), so runs on one machine (shards) share entries:
/// one builds, the others wait and reuse.
package final class FixtureCache {
    /// Where the cache lives and how much its entries may hold, as a run's configuration records it.
    package struct Place: Codable, Equatable, Sendable {
        package var directory: String
        package var capBytes: Int64

        package init(directory: String, capBytes: Int64) {
            (self.directory, self.capBytes) = (directory, capBytes)
        }

        /// The default place: `$XDG_CACHE_HOME/persistbench/fixtures`, else `~/.cache/persistbench/fixtures`.
        package static var defaultDirectory: String {
            let environment = ProcessInfo.processInfo.environment
            let base =
                environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
                ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache").path
            return URL(fileURLWithPath: base).appendingPathComponent("persistbench/fixtures").path
        }

        /// 16 GiB: about eight 10M fixtures (1.7–2.6 GiB each in the 2026-11-27 sweep), the LRU evicting the rest.
        package static let defaultCapBytes: Int64 = 16 << 30
    }

    /// Everything that makes a fixture's content: two loads of one key write the same files.
    package struct Key: Codable, Hashable, Sendable {
        package var store: String
        /// The engine and its version, as linked at run time ("SQLite 3.40.1").
        package var engine: String
        package var fixture: String
        package var records: Int
        package var seed: UInt64
        package var batchSize: Int
        /// The records' shape as JSON; nil for `Item`.
        package var shape: String?
        /// The content digest of the executable that loads it: the stores' code and the build's settings.
        package var build: String

        /// The entry's directory name: "sqlite-items-100000-" and a hash of the whole key.
        package var name: String {
            var digest = Digest()
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            let data = (try? encoder.encode(self)) ?? Data()
            data.withUnsafeBytes { digest.add(bytes: $0) }
            return "\(store)-\(fixture)-\(records)-" + String(digest.hash, radix: 16)
        }
    }

    /// What `entry.json` holds.
    package struct Entry: Codable, Sendable {
        package var key: Key
        package var bytes: Int64
        package var contents: Digest
        /// The store's own check the files passed when they were built ("PRAGMA integrity_check, 100000 items
        /// read"), or what was checked instead.
        package var checked: String
        package var loadSeconds: Double
        package var builtAt: Date
        package var lastUsed: Date
    }

    /// Where a cell's fixture came from, for its result and the report.
    package struct Use: Codable, Equatable, Sendable {
        /// The fixture's name ("items").
        package var name: String
        /// True when this run loaded it, false when it reused an entry an earlier load left.
        package var built: Bool
        package var bytes: Int64
        /// What checked it: the store's check when it was built, and for a reuse the digest of its files.
        package var checked: String
        /// Why an entry that was there was built again, if it was (its files changed since they were checked).
        package var rebuilt: String?
    }

    package let place: Place
    private var root: URL { URL(fileURLWithPath: place.directory) }
    /// Entries handed out since the last `release()`: cells may still copy them, so they are not evicted.
    private var pinned: Set<String> = []

    package init(place: Place) throws {
        self.place = place
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: place.directory, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw BadInput("--fixtures \(place.directory) is not a directory")
        }
    }

    /// The files of `key`'s entry, built by `build` (which loads the fixture into the directory it is given and says
    /// how its files were checked, or throws) when there is none or its files changed since they were checked.
    package func files(of key: Key, build: (URL) throws -> String) throws -> (files: URL, use: Use) {
        try FileSystem.makeDirectory(root)
        let entry = root.appendingPathComponent(key.name)
        let found = try locked(key.name) { () -> (files: URL, use: Use) in
            pinned.insert(key.name)
            var rebuilt: String?
            if FileManager.default.fileExists(atPath: entry.appendingPathComponent("entry.json").path) {
                rebuilt = "its entry.json could not be read"
                if let kept = read(entry) {
                    let found = try FileSystem.contentDigest(of: entry.appendingPathComponent("files"))
                    if found.digest == kept.contents && found.bytes == kept.bytes && kept.key == key {
                        var used = kept
                        used.lastUsed = Date()
                        try write(used, to: entry)
                        let use = Use(
                            name: key.fixture, built: false, bytes: kept.bytes,
                            checked: "\(kept.checked); its files' digest as built")
                        return (entry.appendingPathComponent("files"), use)
                    }
                    rebuilt =
                        "its files changed since they were built and checked (\(found.bytes) bytes, digest "
                        + "\(found.digest) against \(kept.bytes) and \(kept.contents))"
                }
                try FileSystem.remove(entry)
            } else if FileManager.default.fileExists(atPath: entry.path) {
                throw BadInput("\(entry.path) is in the fixture cache's place but holds no entry.json: not ours to use")
            }
            return try self.build(key, into: entry, rebuilt: rebuilt, with: build)
        }
        guard let found else { throw BenchError("the lock of \(key.name) was not taken") }
        return found
    }

    /// Builds `key`'s entry (the caller holds its lock): loaded into a staging directory beside it, its digest and
    /// `entry.json` written, then renamed into place, and the cache evicted past its cap.
    private func build(_ key: Key, into entry: URL, rebuilt: String?, with build: (URL) throws -> String) throws -> (
        files: URL, use: Use
    ) {
        let staging = root.appendingPathComponent(".\(key.name)\(Self.stagingSuffix)")
        try FileSystem.remove(staging)
        try FileSystem.makeDirectory(staging.appendingPathComponent("files"))
        let started = monotonicNanoseconds()
        let checked: String
        do { checked = try build(staging.appendingPathComponent("files")) } catch {
            try FileSystem.remove(staging)
            throw error
        }
        let content = try FileSystem.contentDigest(of: staging.appendingPathComponent("files"))
        let now = Date()
        try write(
            Entry(
                key: key, bytes: content.bytes, contents: content.digest, checked: checked,
                loadSeconds: secondsSince(started), builtAt: now, lastUsed: now), to: staging)
        guard rename(staging.path, entry.path) == 0 else {
            throw BenchError.system("cannot rename \(staging.path) to \(entry.path)")
        }
        try evict()
        let use = Use(name: key.fixture, built: true, bytes: content.bytes, checked: checked, rebuilt: rebuilt)
        return (entry.appendingPathComponent("files"), use)
    }

    /// Ends the name of an entry's staging directory, hidden beside it while it builds.
    private static let stagingSuffix = ".building"

    /// Copies `key`'s entry into a cell's `directory`, holding the entry's lock shared so that no other run evicts it
    /// meanwhile.
    package func copy(_ key: Key, to directory: URL) throws {
        let files = root.appendingPathComponent(key.name).appendingPathComponent("files")
        _ = try locked(key.name, LOCK_SH) {
            guard FileManager.default.fileExists(atPath: files.path) else {
                throw BenchError(
                    "the fixture \(files.path) was evicted by another run sharing the cache before this cell copied "
                        + "it: give the runs sharing it a cap above the fixtures of one scale")
            }
            try FileSystem.copyForCell(from: files, to: directory)
        }
    }

    /// Lets the entries handed out so far be evicted (the run moved on to another scale), and evicts past the cap.
    package func release() throws {
        pinned = []
        try evict()
    }

    /// Removes every entry and the cache's directory: a cache in a run's scratch space, at the run's end.
    package func removeAll() throws {
        pinned = []
        try FileSystem.remove(root)
    }

    /// Evicts entries, least recently used first, until what the rest hold is within the cap; an entry handed out
    /// since `release()`, or one another process holds the lock of, stays.
    private func evict() throws {
        guard FileManager.default.fileExists(atPath: root.path) else { return }
        var entries: [(name: String, entry: Entry)] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: root.path) {
            // A build a killed run left: removed once no other run builds it.
            if name.hasPrefix("."), name.hasSuffix(Self.stagingSuffix) {
                let key = String(name.dropFirst().dropLast(Self.stagingSuffix.count))
                _ = try locked(key, wait: false) { try FileSystem.remove(root.appendingPathComponent(name)) }
            } else if !name.hasPrefix("."), let entry = read(root.appendingPathComponent(name)) {
                entries.append((name, entry))
            }
        }
        var total = entries.reduce(0) { $0 + $1.entry.bytes }
        for (name, entry) in entries.sorted(by: { $0.entry.lastUsed < $1.entry.lastUsed }) {
            guard total > place.capBytes else { break }
            guard !pinned.contains(name) else { continue }
            let removed = try locked(name, wait: false) { () -> Bool in
                try FileSystem.remove(root.appendingPathComponent(name))
                return true
            }
            if removed == true { total -= entry.bytes }
        }
    }

    private func read(_ entry: URL) -> Entry? {
        let file = entry.appendingPathComponent("entry.json")
        guard let data = FileManager.default.contents(atPath: file.path) else { return nil }
        return try? JSONDecoder().decode(Entry.self, from: data)
    }

    private func write(_ entry: Entry, to directory: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try FileSystem.writeAtomically(try encoder.encode(entry), to: directory.appendingPathComponent("entry.json"))
    }

    /// `body` under the lock of entry `name` (`LOCK_EX`, or `LOCK_SH` for a copy): waited for, or with `wait`
    /// false, nil when another process holds it.
    private func locked<Value>(
        _ name: String, _ operation: Int32 = LOCK_EX, wait: Bool = true, _ body: () throws -> Value
    ) throws -> Value? {
        let path = root.appendingPathComponent(".\(name).lock").path
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw BenchError.system("cannot open \(path)") }
        defer { close(descriptor) }
        while flock(descriptor, operation | (wait ? 0 : LOCK_NB)) != 0 {
            if errno == EINTR { continue }
            if !wait && errno == EWOULDBLOCK { return nil }
            throw BenchError.system("cannot lock \(path)")
        }
        return try body()
    }
}
