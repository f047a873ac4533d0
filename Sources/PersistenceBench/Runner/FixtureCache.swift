import Foundation

/// Fixtures kept between runs: each store's fixture at a scale loaded once, checked, and copied into every cell
/// that starts from it, in this run and later ones (`run --fixtures DIR`).
///
/// The cache's directory holds `.persistbench-fixtures`, and nothing else but what the cache writes: an entry is a
/// directory named by its key (`Key.name`) holding the store's files in `files/` and `entry.json` (`Entry`: the key,
/// the files' bytes and content digest, what checked them, when it was built and last used). Before an entry is
/// reused its files are read again and must give the digest they had when they were built and checked: a byte
/// changed since (a cell that wrote to its fixture, a disk's fault, a hand) and the entry is built again. Each entry
/// has a lock (`flock` on `.<name>.lock`): built under it exclusively, then held shared by each run that uses it
/// until that run's `release()`, so runs on one machine (shards) share entries, one building while the others wait,
/// and none evicts an entry another holds. Entries past `capBytes` are evicted least recently used first.
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

        /// `--fixtures DIR|none` and `--fixtures-cap`: nil for `none`, else the directory (absolute, and checked
        /// now, so that a bad one is bad input before a run starts) and the cap.
        package init?(option: String, cap: MemorySize) throws {
            guard option != "none" else { return nil }
            guard !option.isEmpty else { throw BadInput("--fixtures needs a directory (or none)") }
            self.init(directory: URL(fileURLWithPath: option).standardizedFileURL.path, capBytes: cap.bytes)
            _ = try FixtureCache(place: self)
        }

        /// 16 GiB: about eight 10M fixtures (1.7–2.6 GiB each in the 2026-11-27 sweep), the LRU evicting the rest.
        package static let defaultCapBytes: Int64 = 16 << 30
    }

    /// Everything that makes a fixture's content: two loads of one key hold the same records (and, for most stores,
    /// are the same files: the ORMs stamp ids, `json` orders keys by a per-process hash, so a cached entry keeps
    /// one load's bytes for every later cell).
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
        /// The content digest of the executable that loads it: the stores' code and the build's settings (not the
        /// shared libraries it links: the engine's version is `engine`).
        package var build: String

        /// The key of `fixture` for `cell` in a run of `configuration`, loaded by an executable whose content digest
        /// is `build`.
        package init(_ fixture: Fixture, for cell: PlannedCell, in configuration: RunConfiguration, build: String)
            throws
        {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            self.init(
                store: cell.store.name, engine: cell.store.engine(), fixture: fixture.name,
                records: cell.scale.records, seed: configuration.seed, batchSize: configuration.batchSize,
                shape: try configuration.shape.map { String(decoding: try encoder.encode($0), as: UTF8.self) },
                build: build)
        }

        package init(
            store: String, engine: String, fixture: String, records: Int, seed: UInt64, batchSize: Int,
            shape: String?, build: String
        ) {
            (self.store, self.engine, self.fixture, self.records) = (store, engine, fixture, records)
            (self.seed, self.batchSize, self.shape, self.build) = (seed, batchSize, shape, build)
        }

        /// The content digest of `executable`, as `build` names it.
        package static func build(of executable: String) throws -> String {
            String(try FileSystem.contentDigest(ofFile: URL(fileURLWithPath: executable)).hash, radix: 16)
        }

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
        /// The store's own check the files passed when they were built ("the store's integrity check and a read of
        /// its 100000 items"), or that there was none.
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
    /// The entries handed out since the last `release()`, each with the descriptor of its lock held shared: cells may
    /// still copy them, so no run (this one or another sharing the cache) evicts them.
    private var pinned: [String: Int32] = [:]

    /// Names the cache's directory as one: a directory that holds anything without it is not a cache to write in.
    static let markerName = ".persistbench-fixtures"

    /// Bad input when `place` is no directory the cache may use: an empty path, a file, a directory that holds files
    /// of something else (no `.persistbench-fixtures` in it), or one it cannot create or write; nothing is written.
    package init(place: Place) throws {
        self.place = place
        let path = place.directory
        guard !path.isEmpty else { throw BadInput("--fixtures needs a directory (or none)") }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw BadInput("--fixtures \(path) is not a directory") }
            let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
            guard names.isEmpty || names.contains(Self.markerName) else {
                throw BadInput(
                    "--fixtures \(path) holds files that are not a fixture cache's (no \(Self.markerName) in it): "
                        + "name a new or empty directory, or one a run kept its fixtures in")
            }
        }
        // Nothing is made until the first fixture is: its nearest existing ancestor must let the tool write.
        var existing = root.standardizedFileURL
        while !FileManager.default.fileExists(atPath: existing.path), existing.path != "/" {
            existing.deleteLastPathComponent()
        }
        guard access(existing.path, W_OK) == 0 else {
            throw BadInput("--fixtures \(path): \(existing.path) is not a directory the tool can write in")
        }
    }

    deinit {
        for descriptor in pinned.values { close(descriptor) }
    }

    /// Creates the cache's directory and its marker where they are missing (a scratch cache is removed per scale).
    private func openRoot() throws {
        try FileSystem.makeDirectory(root)
        // Made in place, not renamed into it: two runs making one cache at once both find it theirs.
        let marker = root.appendingPathComponent(Self.markerName).path
        let descriptor = open(marker, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        if descriptor >= 0 {
            close(descriptor)
        } else if errno != EEXIST {
            throw BenchError.system("cannot create \(marker)")
        }
    }

    /// The files of `key`'s entry, built by `build` (which loads the fixture into the directory it is given and says
    /// how its files were checked, or throws) when there is none or its files changed since they were checked.
    ///
    /// The entry is held (a shared lock) until `release()`. An entry is checked under a shared lock, so that runs
    /// sharing the cache check and copy it at once, and built under an exclusive one, so that one run builds it
    /// while the others wait for it.
    package func files(of key: Key, build: (URL) throws -> String) throws -> (files: URL, use: Use) {
        try openRoot()
        let entry = root.appendingPathComponent(key.name)
        if let descriptor = pinned.removeValue(forKey: key.name) { close(descriptor) }
        // A run building the entry holds it exclusively: the shared lock waits for its build, then reuses it. An
        // entry found missing or changed is built by the run that takes it exclusively first; one that cannot (others
        // hold the entry shared) looks again a moment later.
        for _ in 0..<Self.attempts {
            guard let shared = try lock(key.name, LOCK_SH) else { continue }
            let found: Found
            do { found = try inspect(entry, of: key) } catch {
                close(shared)
                throw error
            }
            if case .reusable(let use) = found {
                pinned[key.name] = shared
                return (entry.appendingPathComponent("files"), use)
            }
            close(shared)
            guard let exclusive = try lock(key.name, LOCK_EX | LOCK_NB) else {
                usleep(100_000)
                continue
            }
            let use: Use
            do { use = try self.build(key, at: entry, holding: exclusive, with: build) } catch {
                close(exclusive)
                throw error
            }
            pinned[key.name] = exclusive
            evictIfItCan()
            return (entry.appendingPathComponent("files"), use)
        }
        throw BenchError(
            "the fixture \(entry.path) is held by other runs but its files are not what its entry.json records: "
                + "stop them, or use another --fixtures")
    }

    /// How many times `files(of:build:)` looks at an entry others hold before it gives up: 10 s.
    private static let attempts = 100

    /// `key`'s entry built, or reused if a run built it while this one waited, under the exclusive lock `exclusive`,
    /// which is then held shared.
    private func build(_ key: Key, at entry: URL, holding exclusive: Int32, with build: (URL) throws -> String)
        throws -> Use
    {
        let use: Use
        switch try inspect(entry, of: key) {
        case .reusable(let found): use = found
        case .foreign: throw BadInput("\(entry.path) is in the fixture cache but holds no entry.json: not ours to use")
        case .missing: use = try self.build(key, into: entry, rebuilt: nil, with: build)
        case .changed(let reason):
            try discard(key.name)
            use = try self.build(key, into: entry, rebuilt: reason, with: build)
        }
        // Held on as shared (Linux converts a flock without letting another process in between).
        guard flock(exclusive, LOCK_SH) == 0 else { throw BenchError.system("cannot lock \(key.name)") }
        return use
    }

    /// Whether the cache holds an entry of `key` (its files not checked: for an estimate).
    package func holds(_ key: Key) -> Bool {
        read(root.appendingPathComponent(key.name))?.key == key
    }

    /// What is at an entry's place.
    private enum Found {
        case reusable(Use)
        case missing
        /// A directory of that name without the tool's entry.json.
        case foreign
        /// An entry whose files or entry.json are not as its build left them, and why.
        case changed(String)
    }

    /// The entry at `entry`, its files' digest checked against its build's; a reusable one's last use noted.
    private func inspect(_ entry: URL, of key: Key) throws -> Found {
        guard FileManager.default.fileExists(atPath: entry.appendingPathComponent("entry.json").path) else {
            return FileManager.default.fileExists(atPath: entry.path) ? .foreign : .missing
        }
        guard let kept = read(entry), kept.key == key else { return .changed("its entry.json could not be read") }
        let found = try FileSystem.contentDigest(of: entry.appendingPathComponent("files"))
        guard found.digest == kept.contents && found.bytes == kept.bytes else {
            return .changed(
                "its files changed since they were built and checked (\(found.bytes) bytes, digest \(found.digest) "
                    + "against \(kept.bytes) and \(kept.contents))")
        }
        var used = kept
        used.lastUsed = Date()
        // The note of its use is best effort: a disk that filled since must not stop a run that only reads it.
        try? write(used, to: entry)
        return .reusable(
            Use(
                name: key.fixture, built: false, bytes: kept.bytes,
                checked: "\(kept.checked); its files' digest as built"))
    }

    /// Builds `key`'s entry (the caller holds its lock exclusively): loaded into a staging directory beside it, its
    /// digest and `entry.json` written, then renamed into place.
    private func build(_ key: Key, into entry: URL, rebuilt: String?, with build: (URL) throws -> String) throws -> Use
    {
        let staging = root.appendingPathComponent(".\(key.name)\(Self.stagingSuffix)")
        try FileSystem.remove(staging)
        try FileSystem.makeDirectory(staging.appendingPathComponent("files"))
        let started = monotonicNanoseconds()
        do {
            let checked = try build(staging.appendingPathComponent("files"))
            let content = try FileSystem.contentDigest(of: staging.appendingPathComponent("files"))
            let now = Date()
            try write(
                Entry(
                    key: key, bytes: content.bytes, contents: content.digest, checked: checked,
                    loadSeconds: secondsSince(started), builtAt: now, lastUsed: now), to: staging)
            guard rename(staging.path, entry.path) == 0 else {
                throw BenchError.system("cannot rename \(staging.path) to \(entry.path)")
            }
            return Use(name: key.fixture, built: true, bytes: content.bytes, checked: checked, rebuilt: rebuilt)
        } catch {
            try? FileSystem.remove(staging)
            throw error
        }
    }

    /// Ends the name of an entry's staging directory, hidden beside it while it builds.
    private static let stagingSuffix = ".building"
    /// Ends the name an entry is renamed to before it is removed: a run killed while removing it leaves no entry
    /// without its entry.json under the entry's name.
    private static let discardedSuffix = ".evicting"

    /// Removes entry `name` (its lock held): renamed out of the way first, then deleted.
    private func discard(_ name: String) throws {
        let away = root.appendingPathComponent(".\(name)\(Self.discardedSuffix)")
        try FileSystem.remove(away)
        guard rename(root.appendingPathComponent(name).path, away.path) == 0 else {
            throw BenchError.system("cannot rename \(name) to remove it")
        }
        try FileSystem.remove(away)
    }

    /// Whether `name` is one the cache gives an entry: `<store>-<fixture>-<records>-<hex hash>`.
    static func isEntryName(_ name: String) -> Bool {
        let parts = name.split(separator: "-")
        guard parts.count >= 4, let hash = parts.last, let records = parts.dropLast().last else { return false }
        return !hash.isEmpty && hash.allSatisfy(\.isHexDigit) && !records.isEmpty && records.allSatisfy(\.isNumber)
    }

    /// Copies `key`'s entry, which `files(of:build:)` handed out and holds, into a cell's `directory`.
    package func copy(_ key: Key, to directory: URL) throws {
        let files = root.appendingPathComponent(key.name).appendingPathComponent("files")
        guard pinned[key.name] != nil, FileManager.default.fileExists(atPath: files.path) else {
            throw BenchError("the fixture \(files.path) is not held by this run: it was evicted or never built")
        }
        try FileSystem.copyForCell(from: files, to: directory)
    }

    /// Lets the entries handed out so far be evicted (the run moved on to another scale), and evicts past the cap.
    package func release() throws {
        for descriptor in pinned.values { close(descriptor) }
        pinned = [:]
        evictIfItCan()
    }

    /// Evicts past the cap where it can: an entry it cannot remove (a file system's error) stays, and stops no run.
    private func evictIfItCan() {
        try? evict()
    }

    /// Removes every entry and the cache's directory: a cache in a run's scratch space, after each scale.
    package func removeAll() throws {
        for descriptor in pinned.values { close(descriptor) }
        pinned = [:]
        try FileSystem.remove(root)
    }

    /// Evicts entries, least recently used first, until what the rest hold is within the cap.
    ///
    /// An entry a run holds (this one or another) stays. A staging directory a killed run left is removed once no run
    /// builds it.
    private func evict() throws {
        guard FileManager.default.fileExists(atPath: root.path) else { return }
        var entries: [(name: String, entry: Entry)] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: root.path) {
            // A build or a removal a killed run left: removed once no run builds or removes that entry.
            if let suffix = [Self.stagingSuffix, Self.discardedSuffix].first(where: name.hasSuffix), name.hasPrefix(".")
            {
                let key = String(name.dropFirst().dropLast(suffix.count))
                guard Self.isEntryName(key) else { continue }
                _ = try withLockIfFree(key) { try FileSystem.remove(root.appendingPathComponent(name)) }
            } else if Self.isEntryName(name), let entry = read(root.appendingPathComponent(name)) {
                entries.append((name, entry))
            }
        }
        var total = entries.reduce(0) { $0 + $1.entry.bytes }
        for (name, entry) in entries.sorted(by: { $0.entry.lastUsed < $1.entry.lastUsed }) {
            guard total > place.capBytes else { break }
            guard pinned[name] == nil else { continue }
            if try withLockIfFree(name, { try discard(name) }) { total -= entry.bytes }
        }
    }

    private func read(_ entry: URL) -> Entry? {
        guard let data = FileManager.default.contents(atPath: entry.appendingPathComponent("entry.json").path)
        else { return nil }
        return try? JSONDecoder().decode(Entry.self, from: data)
    }

    /// Writes `entry.json` through a temporary file of its own, renamed over it: runs that note a use at once each
    /// leave a whole file.
    private func write(_ entry: Entry, to directory: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(entry).write(to: directory.appendingPathComponent("entry.json"), options: .atomic)
    }

    /// The descriptor of entry `name`'s lock file, locked (`LOCK_SH` or `LOCK_EX`, waiting for other runs), or with
    /// `LOCK_NB` nil when another run holds it.
    private func lock(_ name: String, _ operation: Int32) throws -> Int32? {
        let path = root.appendingPathComponent(".\(name).lock").path
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw BenchError.system("cannot open \(path)") }
        while flock(descriptor, operation) != 0 {
            if errno == EINTR { continue }
            let busy = errno == EWOULDBLOCK
            close(descriptor)
            if busy { return nil }
            throw BenchError.system("cannot lock \(path)")
        }
        return descriptor
    }

    /// Runs `body` holding entry `name`'s lock exclusively if no run holds it: false, without running it, if one
    /// does.
    private func withLockIfFree(_ name: String, _ body: () throws -> Void) throws -> Bool {
        guard let descriptor = try lock(name, LOCK_EX | LOCK_NB) else { return false }
        defer { close(descriptor) }
        try body()
        return true
    }

}
