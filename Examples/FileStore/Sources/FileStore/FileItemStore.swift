import Foundation
import PersistenceBench

#if canImport(Glibc)
    import Glibc
#endif

/// `files`: one JSON file per item, named by its id, in one directory; no index, no transaction.
///
/// The simplest store an app writes by hand. A write is durable before it returns: each file is written beside its
/// place, flushed and renamed over it, and the directory flushed once for the batch. A batch is not atomic: a crash
/// in the middle of one keeps the files already renamed. Reads by id open one file; everything else (counts, pages,
/// ranges) reads every file.
public final class FileItemStore: ItemStore {
    public static let kind = StoreKind(
        name: "files",
        summary: "one JSON file per item in a directory (Examples/FileStore: a store added from another package)",
        durability: "every write's files flushed and renamed into place, their directory flushed; a batch is not "
            + "atomic",
        promise: .survivesKills,
        configuration: "items/<id>.json by JSONEncoder; no index: counts, pages and ranges read every file",
        engine: { "Foundation's JSONEncoder, a file per item" },
        type: FileItemStore.self,
        open: { try FileItemStore(directory: $0) })

    let items: URL
    let encoder = JSONEncoder()
    let decoder = JSONDecoder()

    init(directory: URL) throws {
        items = directory.appendingPathComponent("items")
        try FileManager.default.createDirectory(at: items, withIntermediateDirectories: true)
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
        for id in ids where unlink(file(id).path) != 0 {
            throw FileStoreError("deleting \(file(id).path): \(String(cString: strerror(errno)))")
        }
        try flush(items)
    }

    /// Each item's file written beside its place and flushed, then renamed over it; the directory flushed once.
    private func write(_ batch: [Item]) throws {
        for item in batch {
            let temporary = items.appendingPathComponent("\(item.id).json.new")
            let data = try encoder.encode(item)
            let descriptor = Glibc.open(temporary.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            guard descriptor >= 0 else { throw FileStoreError("creating \(temporary.path): \(systemReason())") }
            defer { Glibc.close(descriptor) }
            let written = data.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            guard written == data.count, fsync(descriptor) == 0 else {
                throw FileStoreError("writing \(temporary.path): \(systemReason())")
            }
            guard rename(temporary.path, file(item.id).path) == 0 else {
                throw FileStoreError("renaming \(temporary.path): \(systemReason())")
            }
        }
        try flush(items)
    }

    private func flush(_ directory: URL) throws {
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
    private func storedIDs() throws -> [Int64] {
        try FileManager.default.contentsOfDirectory(atPath: items.path)
            .compactMap { $0.hasSuffix(".json") ? Int64($0.dropLast(5)) : nil }.sorted()
    }

    private func file(_ id: Int64) -> URL { items.appendingPathComponent("\(id).json") }
}

/// What failed in the file store, with the path and the system's reason.
struct FileStoreError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = "files: " + description }
}

private func systemReason() -> String { String(cString: strerror(errno)) }
