import Foundation
import PersistenceBench

/// `packed`: items as fixed-width rows in memory-mapped files, strings in an arena, written the way a profiler
/// keeps its samples, and made durable.
///
/// Files, in the generation directory that `CURRENT` names (`g1/` until a `compact`):
/// - `items.rows`: the two-slot `StoreHeader`, then 48-byte `ItemRow`s in insertion order.
/// - `strings.arena`: titles and notes, referenced by offset and length.
/// - `items.tombstones`: one bit per row, set when the row is deleted.
/// - `items.journal`: the in-place changes (row images, tombstones) of the last commit, replayed on open.
/// - `items.order`: the `OrderIndex` for `page`.
///
/// A commit (1) flushes the previous commit's in-place changes, (2) writes this commit's in-place changes to the
/// journal and flushes it with any rows and strings it appended, (3) writes the header slot not in use and flushes
/// it, (4) applies the in-place changes. An insert, which only appends, skips (2): its rows and strings are flushed
/// with the slot, one `fdatasync` per file, and an open trusts the slot only once every row it appended reads back
/// whole (checksums over fields and strings), else opens to the commit before it. Reopening after a crash at any
/// step yields the last committed state: bytes beyond the committed lengths are cut off, and a journal whose
/// checksum matches the header is replayed.
///
/// Access paths: `count(where:)` reads one of eight counts kept in the header; `item(id:)` binary-searches the
/// rows while ids ascend in row order (the usual case) and otherwise an id permutation built in memory; `page`
/// reads the `OrderIndex`.
package final class PackedItemStore: Store, ByteLayoutStore {
    package static let kind = StoreKind(
        name: "packed",
        summary: "48-byte rows and a string arena in memory-mapped files, appended; a checksummed two-slot header "
            + "commits; sorted permutation arrays for pages",
        durability: "every commit fsynced: the journal of in-place changes, then the header slot; an insert's rows "
            + "and strings flushed with its slot (an open checks them) (fdatasync each file)",
        configuration: "read-only maps of its files (capacity doubled as they grow); writes through pwrite; page "
            + "order arrays rebuilt in memory after a write (radix-sorted on 16-byte title prefixes)",
        engine: { "packed format \(StoreHeader.formatVersion) (this package)" }, type: PackedItemStore.self,
        open: { try PackedItemStore(directory: $0) })

    /// `packed`, then `packed+nosync`: the same files and commits without a single flush until a clean close.
    package static let kinds = [
        kind,
        StoreKind(
            name: "packed+nosync",
            summary: "packed without flushes: a commit writes its data, journal and header in the same order but "
                + "syncs nothing; a clean close flushes every file",
            durability: "no flushes: a crash of the process loses nothing committed; a power cut may lose or "
                + "damage anything written since the last clean close",
            promise: .survivesKills,
            configuration: kind.configuration + "; no fdatasync at commits, every file flushed at close",
            engine: kind.engine, inclusion: .variant, type: PackedItemStore.self,
            open: { try PackedItemStore(directory: $0, flushes: false) }),
        StoreKind(
            name: "packed+random",
            summary: "packed with its maps advised MADV_RANDOM, as a random-access store advises the kernel: a "
                + "fault of a page not in memory reads that page, not the read-ahead window around it",
            durability: kind.durability,
            configuration: kind.configuration + "; madvise(MADV_RANDOM) on the maps of its rows, strings, "
                + "tombstones and journal",
            engine: kind.engine, inclusion: .whenNamed, type: PackedItemStore.self,
            open: { try PackedItemStore(directory: $0, randomAccess: true) }),
    ]

    /// The header keeps the number of live items per (priority, stock) filter, updated by every commit.
    package static var maintainedCounts: Set<MaintainedCount> { [.itemsPerFilter] }

    /// A point in a commit where a test can stop it, as a crash would.
    enum CommitStep: CaseIterable, Sendable {
        case afterAppending, beforeHeader, tornHeader, afterHeader, halfwayInPlace
    }

    struct SimulatedCrash: Error {}

    package let directory: URL
    /// Held from the open to the close: a second process's open (`two-processes`) is refused (`StoreInUse`).
    ///
    /// The store appends at the lengths its header had at open, so a second writer would append over the first's rows
    /// and its header slot name a state the first never committed: without the lock, the second process's commits were
    /// all lost and the first lost some of its own (docs/findings.md). Taken before any file is read, so that a refused
    /// open changes nothing (its recovery would cut off the other process's appends).
    let lock: DirectoryLock
    /// Whether commits flush (`packed`) or not (`packed+nosync`, which flushes everything at a clean close only).
    let flushes: Bool
    /// Whether its rows, strings, tombstones and journal are mapped `MADV_RANDOM` (`packed+random`).
    let randomAccess: Bool
    var generation: URL
    var rows: MappedFile
    var arena: MappedFile
    var tombstones: MappedFile
    var journal: MappedFile
    var header: StoreHeader
    var order: OrderIndex?
    /// Live rows sorted by id, when ids do not ascend in row order; built when first needed.
    var idIndex: [UInt32]?
    /// In-place changes written since the last flush of `items.rows` and `items.tombstones`.
    var inPlaceUnflushed = false
    /// What the open's recovery did, one line each: a commit it did not trust, a creation it made again.
    package var recoveryNotes: [String] = []
    /// Tests set this to stop the next commit at a step.
    var crashAt: CommitStep?
    /// The live titles, when titles are unique: built from the rows by the first checked write after an open or a
    /// change that dropped it, inside that write's (timed) call; never at open.
    var liveTitles: Set<String>?
    /// Sports, teams and houses, opened by the first call that needs them.
    var openedGraph: PackedGraph?
    /// The time profile, likewise.
    var openedProfile: PackedProfile?
    /// The records of a shape, likewise (`PackedRecords.swift`).
    var openedRecords: PackedRecords?
    /// What readers on other threads read (`PackedItemStore+Live.swift`): the last committed state and mappings
    /// that cover it, replaced after every commit while `readersLock` is held alone.
    var published: PackedSnapshot?
    /// Held to read by readers on other threads for each read; held alone to publish a state, and while a commit
    /// rewrites rows and tombstones in place, so that no reader sees a row half rewritten.
    let readersLock = ReadWriteLock()
    /// Bumped after every published state, for observers (`+Observation`).
    let commits = CommitSignal()

    /// The committed state, for tests.
    var state: StoreHeader { header }

    package init(directory: URL, flushes: Bool = true, randomAccess: Bool = false) throws {
        self.directory = directory
        lock = try DirectoryLock(directory.path, store: "packed")
        self.flushes = flushes
        self.randomAccess = randomAccess
        generation = try Self.currentGeneration(in: directory)
        (rows, arena, tombstones, journal) = try Self.openFiles(
            in: generation, flushes: flushes, randomAccess: randomAccess)
        header = StoreHeader()
        try recover()
    }

    deinit { closeFiles() }

    package func close() throws {
        readersLock.writing { published = nil }
        if !flushes {
            // The clean close `packed+nosync` promises: everything its commits left unflushed, now.
            for file in [rows, arena, tombstones, journal] { try file.flush() }
            try order?.flush()
            try openedGraph?.flush()
            try openedProfile?.flush()
            try openedRecords?.flush()
            for folder in [generation, directory] { try FileSystem.syncDirectory(folder) }
        }
        closeFiles()
        lock.release()
    }

    func closeFiles() {
        for file in [rows, arena, tombstones, journal] { file.close() }
        order?.close()
        order = nil
        openedGraph?.close()
        openedGraph = nil
        openedProfile?.close()
        openedProfile = nil
        openedRecords?.close()
        openedRecords = nil
    }

    /// The time profile in `profile/`, opened (or created) on first use.
    func profile() throws -> PackedProfile {
        if let openedProfile { return openedProfile }
        let profile = try PackedProfile(directory: directory.appendingPathComponent("profile"), flushes: flushes)
        openedProfile = profile
        return profile
    }

    /// The graph in `graph/`, opened (or created) on first use.
    func graph() throws -> PackedGraph {
        if let openedGraph { return openedGraph }
        let graph = try PackedGraph(directory: directory.appendingPathComponent("graph"), flushes: flushes)
        openedGraph = graph
        return graph
    }
}
