import Foundation
import PersistenceBench

#if canImport(Glibc)
    import Glibc
#endif

/// `files`: one JSON file per item, named by its id, in one directory; no index.
///
/// The simplest store an app writes by hand. A write is durable before it returns, and a batch all or none: each new
/// file is written beside its place and flushed; a batch of more than one change first names them all in a journal,
/// flushed, then renames and removes, and removes the journal, flushing the directory between steps. An open finishes
/// a batch its journal names and removes files never put in place. Reads by id open one file; everything else
/// (counts, pages, ranges) reads every file.
public final class FileItemStore: ItemStore, IntegrityCheckingStore {
    public static let kind = StoreKind(
        name: "files",
        summary: "one JSON file per item in a directory (Examples/FileStore: a store added from another package)",
        durability: "every write's files flushed and renamed into place, their directory flushed; a batch of more "
            + "than one change through a flushed journal, finished by the next open",
        promise: .everyCommit,
        configuration: "items/<id>.json by JSONEncoder, items/batch.journal while a batch is put in place; no index: "
            + "counts, pages and ranges read every file",
        engine: { "Foundation's JSONEncoder, a file per item" },
        type: FileItemStore.self,
        open: { try FileItemStore(directory: $0) })

    let items: URL
    let encoder = JSONEncoder()
    let decoder = JSONDecoder()
    /// What the open did to reach the last committed state: a batch its journal named, finished; files never put in
    /// place, removed.
    public internal(set) var recoveryNotes: [String] = []
    /// Why a batch failed after its journal was flushed: every later write refuses until the store is reopened.
    private var unfinished: String?

    init(directory: URL) throws {
        items = directory.appendingPathComponent("items")
        try FileManager.default.createDirectory(at: items, withIntermediateDirectories: true)
        // A new directory's name is the parent's data: flushed, or a power cut loses every file in it (at every
        // open: a process killed between the two left it unflushed).
        try flush(directory)
        try recover()
    }

    public func close() throws {}

    // MARK: Writes

    public func insert(_ batch: [Item]) throws {
        for item in batch where FileManager.default.fileExists(atPath: file(item.id).path) {
            throw FileStoreError("item \(item.id) is already stored")
        }
        try write(batch)
    }

    public func insertDurably(_ item: Item) throws { try insert([item]) }

    public func update(_ updates: [ItemUpdate]) throws {
        var changed: [Item] = []
        for update in updates {
            guard var stored = try item(id: update.id) else { throw FileStoreError("no item \(update.id) to update") }
            update.apply(to: &stored)
            changed.append(stored)
        }
        try write(changed)
    }

    public func delete(ids: [Int64]) throws {
        try requireDistinct(ids)
        for id in ids where !FileManager.default.fileExists(atPath: file(id).path) {
            throw FileStoreError("deleting \(file(id).path): no such item")
        }
        try commit(Journal(written: [], deleted: ids))
    }

    private func write(_ batch: [Item]) throws {
        try requireDistinct(batch.map(\.id))
        for item in batch { try writeFlushed(try encoder.encode(item), to: pending(item.id)) }
        try commit(Journal(written: batch.map(\.id), deleted: []))
    }

    /// Puts a batch's flushed files in place and removes its deleted ones, all or none: one change is one rename or
    /// removal; more are named first in a flushed journal, which `recover()` finishes after a crash.
    private func commit(_ batch: Journal) throws {
        if let unfinished {
            throw FileStoreError("a batch failed after its journal was flushed (\(unfinished)): reopen")
        }
        let journaled = batch.written.count + batch.deleted.count > 1
        if journaled {
            try flush(items)  // the new files' names, before the journal that names them
            try writeFlushed(try encoder.encode(batch), to: journal)
            try flush(items)
        }
        do {
            try apply(batch, finishing: false)
            try flush(items)
            if journaled {
                guard unlink(journal.path) == 0 else {
                    throw FileStoreError("removing \(journal.path): \(systemReason())")
                }
                try flush(items)  // before a later batch's files can take the names this journal holds
            }
        } catch {
            // Committed in the journal, in part in place: no later batch may write its journal over this one's.
            // The next open finishes it.
            if journaled { unfinished = "\(error)" }
            throw error
        }
    }

    /// A batch names each item once: its files and journal are by id.
    private func requireDistinct(_ ids: [Int64]) throws {
        var seen = Set<Int64>()
        for id in ids where !seen.insert(id).inserted { throw FileStoreError("a batch names item \(id) twice") }
    }

    /// Renames a batch's new files over their places and removes its deleted ones; `finishing` a batch a crash
    /// interrupted, what it already did is skipped.
    func apply(_ batch: Journal, finishing: Bool) throws {
        for id in batch.written where rename(pending(id).path, file(id).path) != 0 {
            guard finishing, errno == ENOENT else {
                throw FileStoreError("renaming \(pending(id).path): \(systemReason())")
            }
        }
        for id in batch.deleted where unlink(file(id).path) != 0 {
            guard finishing, errno == ENOENT else {
                throw FileStoreError("deleting \(file(id).path): \(systemReason())")
            }
        }
    }

    /// Writes `data` to a new file at `url` and flushes it.
    private func writeFlushed(_ data: Data, to url: URL) throws {
        let descriptor = Glibc.open(url.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else { throw FileStoreError("creating \(url.path): \(systemReason())") }
        defer { Glibc.close(descriptor) }
        let written = data.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        guard written == data.count, fsync(descriptor) == 0 else {
            throw FileStoreError("writing \(url.path): \(systemReason())")
        }
    }

    func flush(_ directory: URL) throws {
        let descriptor = Glibc.open(directory.path, O_RDONLY | O_DIRECTORY)
        guard descriptor >= 0 else { throw FileStoreError("opening \(directory.path): \(systemReason())") }
        defer { Glibc.close(descriptor) }
        guard fsync(descriptor) == 0 else { throw FileStoreError("flushing \(directory.path): \(systemReason())") }
    }

    // MARK: Reads

    public func item(id: Int64) throws -> Item? {
        guard let data = FileManager.default.contents(atPath: file(id).path) else { return nil }
        return try decoder.decode(Item.self, from: data)
    }

    public func forEachItem(_ body: (Item) throws -> Void) throws {
        for id in try storedIDs() {
            guard let item = try item(id: id) else { throw FileStoreError("item \(id) went away while read") }
            try body(item)
        }
    }

    public func count(where filter: ItemFilter) throws -> Int {
        var count = 0
        try forEachItem { if filter.matches($0) { count += 1 } }
        return count
    }

    public func count(pricedIn range: PriceRange) throws -> Int {
        var count = 0
        try forEachItem { if range.contains($0.price) { count += 1 } }
        return count
    }

    public func page(_ query: ItemPageQuery) throws -> [Item] {
        var matching: [Item] = []
        try forEachItem { if $0.priority == query.priority { matching.append($0) } }
        matching.sort(by: ItemPageQuery.areInIncreasingOrder)
        return Array(matching.dropFirst(query.offset).prefix(query.limit))
    }

    public func items(startingAt id: Int64, limit: Int) throws -> [Item] {
        try storedIDs().filter { $0 >= id }.prefix(limit).map { stored in
            guard let item = try item(id: stored) else { throw FileStoreError("item \(stored) went away while read") }
            return item
        }
    }

    /// The ids with a file, ascending.
    func storedIDs() throws -> [Int64] {
        try FileManager.default.contentsOfDirectory(atPath: items.path)
            .compactMap { $0.hasSuffix(".json") ? Int64($0.dropLast(5)) : nil }.sorted()
    }

    func file(_ id: Int64) -> URL { items.appendingPathComponent("\(id).json") }
    func pending(_ id: Int64) -> URL { items.appendingPathComponent("\(id).json.new") }
    var journal: URL { items.appendingPathComponent(Self.journalName) }
    static let journalName = "batch.journal"

    /// A batch of more than one change, as its journal names it.
    struct Journal: Codable {
        var written: [Int64]
        var deleted: [Int64]
    }
}

/// What failed in the file store, with the path and the system's reason.
struct FileStoreError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = "files: " + description }
}

func systemReason() -> String { String(cString: strerror(errno)) }
