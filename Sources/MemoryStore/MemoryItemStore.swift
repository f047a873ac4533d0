import Foundation
import PersistenceBench

/// The heap stores: everything in Swift arrays, sets and dictionaries, answered in memory.
///
/// `memory` is the harness floor: nothing written while the store runs, so what is left of a cell's time is the
/// harness's own (generating, timing, digesting) and the least work any store must do to answer. YCSB's `BasicDB`
/// plays this role there. `json` and `plist` are the first thing most apps write: the same heap structures, decoded
/// whole from one Codable document at open and written whole at every commit (`+Document`).
///
/// The store keeps what the other stores keep, in the cheapest form: per-filter counts (a maintained count, as
/// `packed` has), page orders sorted at the end of a bulk load and mended by the first page after a write (the
/// written items taken out, sorted and merged back in), a set of titles once they are unique. `memory`'s close
/// writes a binary dump of everything (untimed, after the cell), and its open reads it, so that a fixture loaded
/// once can be copied for each cell like any store's: its `open` cells time that decode, not a floor.
package final class MemoryItemStore: Store {
    package static let kind = StoreKind(
        name: StoreKind.harnessFloorName,
        summary: "the harness floor: items in a Swift array indexed by id, counts kept, page orders sorted on "
            + "demand; nothing persisted while it runs (YCSB's BasicDB)",
        durability: "none: a commit writes nothing; close writes an untimed dump so that fixtures can be copied",
        promise: .nothing,
        configuration: "Swift arrays, sets and dictionaries in the heap; items.dump read at open, written at close",
        engine: { "Swift collections (this package)" }, type: MemoryItemStore.self,
        open: { try MemoryItemStore(directory: $0, persistence: .dumpAtClose) })

    /// The Codable documents, then the floor, which reports list last.
    package static let kinds = DocumentFormat.allCases.map(\.kind) + [kind]

    /// The per-filter counts are kept up to date by every write, as `packed` keeps them.
    package static var maintainedCounts: Set<MaintainedCount> { [.itemsPerFilter] }

    /// How the store's contents reach its directory.
    enum Persistence {
        /// `memory`: nothing while it runs; a binary dump at close (`+Dump`).
        case dumpAtClose
        /// `json`, `plist`: the whole document at every commit (`+Document`).
        case document(DocumentFormat)
    }

    static let dumpName = "items.dump"
    static let magic = Array("PBMEM002".utf8)

    let persistence: Persistence
    /// Held from the open to the close: one process at a time has the store (`MemoryItemStore+Sharing.swift`).
    let lock: DirectoryLock
    /// The dump or the document.
    let file: URL
    /// Slot `id` holds item `id`, or nil; slot 0 is never used.
    var slots: [Item?] = [nil]
    /// Held alone by every write to `slots`, and to read by a reader on another thread (`+Live`); the store's own
    /// reads, on the writing thread, do not take it.
    let itemsLock = ReadWriteLock()
    /// Bumped after every commit, for observers (`+Observation`).
    let commits = CommitSignal()
    var filterCounts = [Int](repeating: 0, count: 8)
    /// Per priority code (0 none, 1–3), the ids of its items in `ItemPageQuery` order, but for `unsortedIDs`;
    /// nil until sorted.
    var pageOrders: [[Int64]]?
    /// Items written since the page orders were last mended: the next page moves them to their place.
    var unsortedIDs: Set<Int64> = []
    /// The live titles, once `migrateToUniqueTitles` made them unique.
    var uniqueTitles: Set<String>?
    /// The league (`+Associations`): sports and teams in id order.
    var sports: [Sport] = []
    var teams: [Team] = []
    /// Slot `id` holds house `id`, or nil (`+Houses`).
    var houses: [House?] = [nil]
    /// The profile (`+Profile`): samples in time order, each naming its call stack in `stacks`, stored once.
    var samples: [StoredSample] = []
    var stacks: [[UInt64]] = []
    var stackIDs: [[UInt64]: Int32] = [:]
    /// Whether something changed that the store's file does not hold yet: `memory`'s dump at close, the document
    /// after a bulk load (whose inserts write nothing until `finishInserting`).
    var unsaved = false
    /// The records of a shape, once asked or read (`+Records`).
    var recordTable: MemoryRecordTable?

    init(directory: URL, persistence: Persistence) throws {
        self.persistence = persistence
        lock = try DirectoryLock(directory.path, store: persistence.storeName)
        switch persistence {
        case .dumpAtClose:
            file = directory.appendingPathComponent(Self.dumpName)
            if FileManager.default.fileExists(atPath: file.path) { try read(Data(contentsOf: file)) }
            try readRecordsDump(in: directory)
        case .document(let format):
            file = directory.appendingPathComponent(format.fileName)
            if FileManager.default.fileExists(atPath: file.path) {
                let document: Document
                do { document = try format.decode(Data(contentsOf: file)) } catch {
                    throw BenchError("\(file.path) cannot be decoded: \(error)")
                }
                try load(document)
            }
        }
        unsaved = !FileManager.default.fileExists(atPath: file.path)
    }

    package func close() throws {
        defer { lock.release() }
        guard unsaved else { return }
        switch persistence {
        case .dumpAtClose:
            try FileSystem.writeAtomically(Data(encoded()), to: file)
            try writeRecordsDump()
        case .document(let format): try write(format)
        }
        unsaved = false
    }

    /// Ends a transaction: the document stores write the whole document; then observers are told.
    func commit() throws {
        if case .document(let format) = persistence, unsaved {
            try write(format)
            unsaved = false
        }
        commits.committed()
    }
}
