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
/// journal and flushes it with the appended rows and strings, (3) writes the header slot not in use and flushes
/// it, (4) applies the in-place changes. Reopening after a crash at any step yields the last committed state:
/// bytes beyond the committed lengths are cut off, and a journal whose checksum matches the header is replayed.
///
/// Access paths: `count(where:)` reads one of eight counts kept in the header; `item(id:)` binary-searches the
/// rows while ids ascend in row order (the usual case) and otherwise an id permutation built in memory; `page`
/// reads the `OrderIndex`.
public final class PackedItemStore: MigrationStore, ByteLayoutStore {
    public static let kind = StoreKind(
        name: "packed",
        summary: "48-byte rows and a string arena in memory-mapped files, appended; a checksummed two-slot header "
            + "commits; sorted permutation arrays for pages",
        durability: "every commit fsynced: appended data and journal, then the header (fdatasync each)",
        configuration: "read-only maps of its files (capacity doubled as they grow); writes through pwrite; page "
            + "order arrays rebuilt in memory after a write",
        engine: { "packed format \(StoreHeader.formatVersion) (this package)" }, type: PackedItemStore.self,
        open: { try PackedItemStore(directory: $0) })

    /// `packed`, then `packed+nosync`: the same files and commits without a single flush until a clean close.
    public static let kinds = [
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
    ]

    /// The header keeps the number of live items per (priority, stock) filter, updated by every commit.
    public static var maintainedCounts: Set<MaintainedCount> { [.itemsPerFilter] }

    /// A point in a commit where a test can stop it, as a crash would.
    enum CommitStep: CaseIterable, Sendable {
        case afterAppending, beforeHeader, tornHeader, afterHeader, halfwayInPlace
    }

    struct SimulatedCrash: Error {}

    public let directory: URL
    /// Whether commits flush (`packed`) or not (`packed+nosync`, which flushes everything at a clean close only).
    let flushes: Bool
    private var generation: URL
    private var rows: MappedFile
    private var arena: MappedFile
    private var tombstones: MappedFile
    private var journal: MappedFile
    private var header: StoreHeader
    private var order: OrderIndex?
    /// Live rows sorted by id, when ids do not ascend in row order; built when first needed.
    private var idIndex: [UInt32]?
    /// In-place changes written since the last flush of `items.rows` and `items.tombstones`.
    private var inPlaceUnflushed = false
    /// Tests set this to stop the next commit at a step.
    var crashAt: CommitStep?
    /// The live titles, when titles are unique: built from the rows by the first checked write after an open or a
    /// change that dropped it, inside that write's (timed) call; never at open.
    private var liveTitles: Set<String>?
    /// Sports, teams and houses, opened by the first call that needs them.
    private var openedGraph: PackedGraph?
    /// The time profile, likewise.
    private var openedProfile: PackedProfile?
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

    public init(directory: URL, flushes: Bool = true) throws {
        self.directory = directory
        self.flushes = flushes
        generation = try Self.currentGeneration(in: directory)
        (rows, arena, tombstones, journal) = try Self.openFiles(in: generation, flushes: flushes)
        header = StoreHeader()
        try recover()
    }

    deinit { closeFiles() }

    public func close() throws {
        readersLock.writing { published = nil }
        if !flushes {
            // The clean close `packed+nosync` promises: everything its commits left unflushed, now.
            for file in [rows, arena, tombstones, journal] { try file.flush() }
            try order?.flush()
            try openedGraph?.flush()
            try openedProfile?.flush()
            for folder in [generation, directory] { try FileSystem.syncDirectory(folder) }
        }
        closeFiles()
    }

    private func closeFiles() {
        for file in [rows, arena, tombstones, journal] { file.close() }
        order?.close()
        order = nil
        openedGraph?.close()
        openedGraph = nil
        openedProfile?.close()
        openedProfile = nil
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

    // MARK: Opening and recovery

    /// The generation directory `CURRENT` names; a new store gets `g1`. Leftovers of an interrupted `compact`
    /// (other `g*` directories) are removed.
    private static func currentGeneration(in directory: URL) throws -> URL {
        let current = directory.appendingPathComponent("CURRENT")
        let name: String
        if FileManager.default.fileExists(atPath: current.path) {
            let text = try String(contentsOf: current, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            guard text.hasPrefix("g"), Int(text.dropFirst()) != nil else {
                throw PackedError.corrupted(current.path, "it names \"\(text)\", not a generation like g1")
            }
            name = text
        } else {
            name = "g1"
            try FileSystem.makeDirectory(directory.appendingPathComponent(name))
            try FileSystem.writeDurably(Data("g1\n".utf8), to: current)
        }
        for entry in try FileManager.default.contentsOfDirectory(atPath: directory.path)
        where entry.hasPrefix("g") && entry != name && Int(entry.dropFirst()) != nil {
            try FileManager.default.removeItem(at: directory.appendingPathComponent(entry))
        }
        return directory.appendingPathComponent(name)
    }

    private static func openFiles(in generation: URL, flushes: Bool) throws -> (
        MappedFile, MappedFile, MappedFile, MappedFile
    ) {
        func open(_ name: String) throws -> MappedFile {
            try MappedFile(path: generation.appendingPathComponent(name).path, create: true, flushes: flushes)
        }
        let rows = try open("items.rows")
        let arena = try open("strings.arena")
        let tombstones = try open("items.tombstones")
        let journal = try open("items.journal")
        try FileMagic.prepare(arena, magic: "PBARENA")
        try FileMagic.prepare(tombstones, magic: "PBTOMBS")
        try FileMagic.prepare(journal, magic: "PBJOURN")
        return (rows, arena, tombstones, journal)
    }

    /// Reads the committed state, cuts off what was written after it, and replays its journal.
    private func recover() throws {
        if rows.length < StoreHeader.rowsStart {
            // A new store, or one whose creation was interrupted (every later write keeps both slots): an initial
            // state in slot 0 and an empty slot 1, flushed with the other files' headers.
            let initial = StoreHeader()
            var bytes = initial.encode()
            bytes += [UInt8](repeating: 0, count: StoreHeader.slotSize)
            try bytes.withUnsafeBytes { try rows.write($0, at: 0) }
            for file in [rows, arena, tombstones, journal] { try file.sync() }
            header = initial
            try publish()
            return
        }
        let slots = try (0..<2).compactMap { slot in
            try StoreHeader.decode(
                UnsafeRawBufferPointer(
                    rebasing: rows.bytes[slot * StoreHeader.slotSize..<(slot + 1) * StoreHeader.slotSize]),
                path: rows.path)
        }
        guard let committed = slots.max(by: { $0.sequence < $1.sequence }) else {
            throw PackedError.corrupted(rows.path, "neither header slot has a valid checksum")
        }
        let rowBytes = StoreHeader.rowsStart + committed.rowCount * ItemRow.size
        guard rows.length >= rowBytes else {
            throw PackedError.corrupted(
                rows.path, "\(rows.length) bytes; its header commits \(committed.rowCount) rows")
        }
        guard arena.length >= committed.arenaLength else {
            throw PackedError.corrupted(
                arena.path, "\(arena.length) bytes; \(rows.path) commits \(committed.arenaLength)")
        }
        // Rows and strings appended after the last commit are not part of the store.
        if rows.length > rowBytes { try rows.truncate(to: rowBytes) }
        if arena.length > committed.arenaLength { try arena.truncate(to: committed.arenaLength) }
        header = committed
        try ensureTombstoneCapacity(rowCount: committed.rowCount)
        try replayJournal()
        order = try OrderIndex.open(in: generation, sequence: header.orderIndexSequence)
        try publish()
    }

    /// Applies the committed journal again (its changes are idempotent row images and tombstones) and flushes.
    private func replayJournal() throws {
        guard header.journalLength > 0 else { return }
        let end = FileMagic.headerSize + header.journalLength
        guard journal.length >= end else {
            throw PackedError.corrupted(journal.path, "\(journal.length) bytes; \(rows.path) commits \(end)")
        }
        let records = UnsafeRawBufferPointer(rebasing: journal.bytes[FileMagic.headerSize..<end])
        // A later, uncommitted commit overwrote this journal only after flushing these changes: nothing to replay.
        guard Checksum.of(records) == header.journalChecksum else { return }
        try applyInPlace(records, stoppingHalfway: false)
        try rows.sync()
        try tombstones.sync()
    }

    // MARK: Commit

    /// Journal records: 64 bytes each, `[row: UInt64][kind: UInt64][48-byte row image or zeros]`, little-endian.
    private enum JournalKind: UInt64 {
        case rowImage = 1, tombstone = 2
    }
    private static let journalRecordSize = 64

    /// Makes `next` the committed state, with `inPlace` journal records applied after it.
    ///
    /// The caller has already written any appended rows and strings beyond the committed lengths.
    private func commit(_ next: StoreHeader, inPlace: [UInt8] = [], appendedRows: Bool, appendedStrings: Bool) throws {
        var next = next
        next.sequence = header.sequence + 1
        try stop(at: .afterAppending)
        if inPlaceUnflushed {
            // The journal is about to be overwritten: the changes it protects must be on disk first.
            try rows.sync()
            try tombstones.sync()
            inPlaceUnflushed = false
        }
        next.journalLength = inPlace.count
        next.journalChecksum = 0
        if !inPlace.isEmpty {
            try inPlace.withUnsafeBytes { records in
                try journal.write(records, at: FileMagic.headerSize)
                next.journalChecksum = Checksum.of(records)
            }
            try journal.sync()
        }
        if appendedStrings { try arena.sync() }
        if appendedRows { try rows.sync() }
        try stop(at: .beforeHeader)
        let slot = next.encode()
        if crashAt == .tornHeader {
            try slot.withUnsafeBytes {
                try rows.write(
                    UnsafeRawBufferPointer(rebasing: $0[..<(StoreHeader.slotSize / 2)]),
                    at: next.slot * StoreHeader.slotSize)
            }
            throw SimulatedCrash()
        }
        try slot.withUnsafeBytes { try rows.write($0, at: next.slot * StoreHeader.slotSize) }
        try rows.sync()
        header = next
        try stop(at: .afterHeader)
        if inPlace.isEmpty {
            try stop(at: .halfwayInPlace)
            try publish()
        } else {
            try readersLock.writing {
                try inPlace.withUnsafeBytes { try applyInPlace($0, stoppingHalfway: crashAt == .halfwayInPlace) }
                try publishHoldingLock()
            }
            inPlaceUnflushed = true
        }
    }

    private func stop(at step: CommitStep) throws {
        if crashAt == step { throw SimulatedCrash() }
    }

    private func applyInPlace(_ records: UnsafeRawBufferPointer, stoppingHalfway: Bool) throws {
        let count = records.count / Self.journalRecordSize
        for index in 0..<count {
            if stoppingHalfway && index == count / 2 { throw SimulatedCrash() }
            let offset = index * Self.journalRecordSize
            let row = Int(UInt64(littleEndian: records.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
            let kind = UInt64(littleEndian: records.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self))
            guard row < header.rowCount else {
                throw PackedError.corrupted(journal.path, "a change to row \(row) of \(header.rowCount)")
            }
            switch JournalKind(rawValue: kind) {
            case .rowImage:
                try rows.write(
                    UnsafeRawBufferPointer(rebasing: records[(offset + 16)..<(offset + 16 + ItemRow.size)]),
                    at: StoreHeader.rowsStart + row * ItemRow.size)
            case .tombstone:
                let byteOffset = FileMagic.headerSize + row / 8
                let byte = tombstones.bytes[byteOffset] | UInt8(1) << (row % 8)
                try withUnsafeBytes(of: byte) { try tombstones.write($0, at: byteOffset) }
            case nil:
                throw PackedError.corrupted(journal.path, "a record of unknown kind \(kind)")
            }
        }
    }

    private static func appendRecord(_ kind: JournalKind, row: Int, image: ItemRow?, to records: inout [UInt8]) {
        let start = records.count
        records.append(contentsOf: repeatElement(0, count: journalRecordSize))
        records.withUnsafeMutableBytes { buffer in
            buffer.storeBytes(of: UInt64(row).littleEndian, toByteOffset: start, as: UInt64.self)
            buffer.storeBytes(of: kind.rawValue.littleEndian, toByteOffset: start + 8, as: UInt64.self)
            image?.write(into: buffer, at: start + 16)
        }
    }

    /// Grows `items.tombstones` with zero bits so that it covers `rowCount` rows.
    ///
    /// Not flushed: new rows are never deleted, and a growth lost in a crash is redone when the store reopens.
    private func ensureTombstoneCapacity(rowCount: Int) throws {
        let needed = FileMagic.headerSize + (rowCount + 7) / 8
        if tombstones.length < needed { try tombstones.truncate(to: needed) }
    }

    // MARK: Rows

    /// The mapped files as plain buffers, taken once before a loop of reads: valid until the next write.
    struct MappedView {
        let rows: UnsafeRawBufferPointer
        let arena: UnsafeRawBufferPointer
        let tombstones: UnsafeRawBufferPointer
        /// Named in the error for a string reference that points outside the arena.
        let arenaPath: String

        @inline(__always)
        func row(_ index: Int) -> ItemRow {
            ItemRow(rows, at: StoreHeader.rowsStart + index * ItemRow.size)
        }

        /// The id stored in row `index`, read without decoding the rest of the row.
        @inline(__always)
        func id(atRow index: Int) -> Int64 {
            Int64(
                littleEndian: rows.loadUnaligned(
                    fromByteOffset: StoreHeader.rowsStart + index * ItemRow.size, as: Int64.self))
        }

        @inline(__always)
        func isDeleted(_ index: Int) -> Bool {
            tombstones[FileMagic.headerSize + index / 8] & UInt8(1) << (index % 8) != 0
        }

        /// The string's bytes, checked against the arena's committed length: a damaged row is an error, not a
        /// read outside the map.
        @inline(__always)
        func string(_ reference: ItemRow.StringReference) throws -> String {
            guard reference.offset >= FileMagic.headerSize, reference.offset <= arena.count,
                reference.length <= arena.count - reference.offset
            else {
                throw PackedError.corrupted(
                    arenaPath,
                    "a row refers to bytes \(reference.offset)..<\(reference.offset + reference.length) "
                        + "of \(arena.count)")
            }
            let bytes = UnsafeRawBufferPointer(rebasing: arena[reference.offset..<reference.offset + reference.length])
            return String(decoding: bytes.assumingMemoryBound(to: UInt8.self), as: UTF8.self)
        }

        @inline(__always)
        func item(at index: Int) throws -> Item {
            let row = row(index)
            let filter = row.filter
            return Item(
                id: row.id, title: try string(row.title), notes: try string(row.notes), isInStock: filter.isInStock,
                priority: filter.priority, price: row.price,
                createdAt: Date(timeIntervalSinceReferenceDate: row.createdAt))
        }
    }

    var view: MappedView {
        MappedView(rows: rows.bytes, arena: arena.bytes, tombstones: tombstones.bytes, arenaPath: arena.path)
    }

    /// Makes the committed state what readers on other threads read.
    private func publish() throws {
        try readersLock.writing { try publishHoldingLock() }
    }

    /// `publish()` for a caller that holds `readersLock` alone.
    private func publishHoldingLock() throws {
        guard let rowsMapping = rows.mapping, let arenaMapping = arena.mapping,
            let tombstonesMapping = tombstones.mapping
        else { throw PackedError("publishing the state of \(rows.path): its files are closed") }
        published = PackedSnapshot(
            state: header, rows: rowsMapping, arena: arenaMapping, tombstones: tombstonesMapping,
            arenaPath: arena.path)
        commits.committed()
    }

    private func row(_ index: Int) -> ItemRow { view.row(index) }

    private func isDeleted(_ index: Int) -> Bool { view.isDeleted(index) }

    /// The row holding live item `id`, or nil.
    private func liveRow(id: Int64) -> Int? {
        Self.liveRow(id: id, in: view, state: header, permutation: idPermutation)
    }

    /// The first position in id order whose id is `id` or more (see the static form).
    private func idLowerBound(_ id: Int64, in view: MappedView) -> Int {
        Self.idLowerBound(id, in: view, state: header, permutation: idPermutation)
    }

    /// The row holding live item `id` in `view` of the committed `state`, or nil; `permutation` lists the live rows
    /// in id order, asked for only when ids do not ascend in row order.
    static func liveRow(id: Int64, in view: MappedView, state: StoreHeader, permutation: () -> [UInt32]) -> Int? {
        let position = idLowerBound(id, in: view, state: state, permutation: permutation)
        if state.rowsAscendByID {
            guard position < state.rowCount, view.id(atRow: position) == id, !view.isDeleted(position) else {
                return nil
            }
            return position
        }
        let index = permutation()
        guard position < index.count, view.id(atRow: Int(index[position])) == id else { return nil }
        return Int(index[position])
    }

    /// The first position in id order whose id is `id` or more: a row (deleted ones included, their ids stay in
    /// order) when rows ascend by id, else a position in `permutation()`; the end when there is none.
    static func idLowerBound(_ id: Int64, in view: MappedView, state: StoreHeader, permutation: () -> [UInt32]) -> Int {
        var low = 0
        if !state.rowsAscendByID {
            let index = permutation()
            var high = index.count
            while low < high {
                let middle = (low + high) / 2
                if view.id(atRow: Int(index[middle])) < id { low = middle + 1 } else { high = middle }
            }
            return low
        }
        // The answer stays in low...high.
        var high = state.rowCount
        // Interpolation first: ids appended in order are usually dense, so the estimate lands on the row (one
        // cache miss where binary search takes log2(n)). Sparse ids narrow the range a little per probe; after
        // four probes binary search finishes, so the worst case stays O(log n).
        for _ in 0..<4 where low < high {
            let lowest = view.id(atRow: low)
            let highest = view.id(atRow: high - 1)
            if id <= lowest { return low }
            if id > highest { return high }
            let fraction = (Double(id) - Double(lowest)) / (Double(highest) - Double(lowest))
            let guess = min(high - 1, low + Int(fraction * Double(high - 1 - low)))
            let found = view.id(atRow: guess)
            if found == id { return guess }
            if found < id { low = guess + 1 } else { high = guess }
        }
        while low < high {
            let middle = (low + high) / 2
            if view.id(atRow: middle) < id { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Live rows sorted by id: built in memory (O(n log n)) the first time a store whose ids do not ascend in row
    /// order needs it, and dropped when rows are added or deleted.
    private func idPermutation() -> [UInt32] {
        if let idIndex { return idIndex }
        let index = Self.idPermutation(of: view, rowCount: header.rowCount)
        idIndex = index
        return index
    }

    /// The live rows among the first `rowCount` of `view`, sorted by id.
    static func idPermutation(of view: MappedView, rowCount: Int) -> [UInt32] {
        var index = (0..<rowCount).filter { !view.isDeleted($0) }.map { UInt32($0) }
        index.sort { view.id(atRow: Int($0)) < view.id(atRow: Int($1)) }
        return index
    }

    // MARK: ItemStore

    public func insert(_ batch: [Item]) throws {
        guard !batch.isEmpty else { return }
        guard header.rowCount + batch.count <= Int(UInt32.max) else {
            throw PackedError("\(rows.path) holds at most \(UInt32.max) rows; inserting \(batch.count) more exceeds it")
        }
        var ascending = header.rowsAscendByID
        var previous = header.rowCount > 0 ? row(header.rowCount - 1).id : Int64.min
        for item in batch where ascending {
            ascending = item.id > previous
            previous = item.id
        }
        if !ascending {
            // Ids must be new: checked against the live rows and within the batch.
            var seen = Set<Int64>()
            for item in batch {
                guard seen.insert(item.id).inserted, liveRow(id: item.id) == nil else {
                    throw PackedError("inserting item \(item.id) into \(rows.path): an item with this id is stored")
                }
            }
        }
        if header.titlesAreUnique { try checkUniqueTitles(batch.map { ($0.id, $0.title) }) }
        var next = header
        let (newRows, strings) = try Self.encode(batch, arenaLength: header.arenaLength, counts: &next.counts)
        try strings.withUnsafeBytes { try arena.write($0, at: header.arenaLength) }
        try newRows.withUnsafeBytes {
            try rows.write($0, at: StoreHeader.rowsStart + header.rowCount * ItemRow.size)
        }
        next.rowCount += batch.count
        next.arenaLength += strings.count
        next.rowsAscendByID = ascending
        next.orderIndexSequence = 0
        try ensureTombstoneCapacity(rowCount: next.rowCount)
        try commit(next, appendedRows: true, appendedStrings: true)
        if header.titlesAreUnique { liveTitles?.formUnion(batch.map(\.title)) }
        if !ascending { idIndex = nil }
        dropOrderIndex()
    }

    /// The rows and strings of `batch`, its strings to be written to the arena at `arenaLength`; adds each row
    /// to its filter's count.
    private static func encode(_ batch: [Item], arenaLength: Int, counts: inout [Int]) throws -> (
        rows: [UInt8], strings: [UInt8]
    ) {
        var strings: [UInt8] = []
        strings.reserveCapacity(batch.count * 128)
        var rows = [UInt8](repeating: 0, count: batch.count * ItemRow.size)
        try rows.withUnsafeMutableBytes { buffer in
            for (index, item) in batch.enumerated() {
                let title = try append(item.title, to: &strings, arenaLength: arenaLength, id: item.id)
                let notes = try append(item.notes, to: &strings, arenaLength: arenaLength, id: item.id)
                var row = ItemRow(
                    id: item.id, price: item.price, createdAt: item.createdAt.timeIntervalSinceReferenceDate,
                    title: title, notes: notes, flags: ItemFilter(matching: item).code
                )
                row.seal(title: item.title, notes: item.notes)
                row.write(into: buffer, at: index * ItemRow.size)
                counts[row.filterKey] += 1
            }
        }
        return (rows, strings)
    }

    /// The rows and strings an insert of `batch` appends.
    public func storedBytes(of batch: [Item]) throws -> [UInt8] {
        var counts = header.counts
        let (rows, strings) = try Self.encode(batch, arenaLength: header.arenaLength, counts: &counts)
        return rows + strings
    }

    /// Appends a string's UTF-8 bytes to `strings`, which will be written at `arenaLength`.
    private static func append(_ string: String, to strings: inout [UInt8], arenaLength: Int, id: Int64) throws
        -> ItemRow.StringReference
    {
        let reference = ItemRow.StringReference(offset: arenaLength + strings.count, length: string.utf8.count)
        guard reference.length <= ItemRow.maximumStringLength,
            reference.offset + reference.length <= ItemRow.maximumArenaOffset
        else {
            throw PackedError(
                "item \(id): a string of \(reference.length) bytes at arena offset \(reference.offset) "
                    + "exceeds the row format (16 MiB strings, 1 TiB arena)")
        }
        strings.append(contentsOf: string.utf8)
        return reference
    }

    public func insertDurably(_ item: Item) throws {
        try insert([item])
    }

    /// Builds the page index at the end of a bulk load, so that the load's time includes it.
    public func finishInserting() throws {
        try ensureOrderIndex()
    }

    public func item(id: Int64) throws -> Item? {
        try liveRow(id: id).map { try view.item(at: $0) }
    }

    public func forEachItem(_ body: (Item) throws -> Void) throws {
        // `body` must not change the store: the view is valid until the next write.
        let view = self.view
        if header.rowsAscendByID {
            for index in 0..<header.rowCount where !view.isDeleted(index) { try body(try view.item(at: index)) }
        } else {
            for index in idPermutation() { try body(try view.item(at: Int(index))) }
        }
    }

    public func items(startingAt id: Int64, limit: Int) throws -> [Item] {
        let view = self.view
        var items: [Item] = []
        items.reserveCapacity(limit)
        var position = idLowerBound(id, in: view)
        if header.rowsAscendByID {
            while position < header.rowCount, items.count < limit {
                if !view.isDeleted(position) { items.append(try view.item(at: position)) }
                position += 1
            }
        } else {
            let index = idPermutation()
            while position < index.count, items.count < limit {
                items.append(try view.item(at: Int(index[position])))
                position += 1
            }
        }
        return items
    }

    public func count(where filter: ItemFilter) throws -> Int {
        header.counts[Int(filter.code)]
    }

    /// A pass over every live row's price: no counter or index covers prices.
    public func count(pricedIn range: PriceRange) throws -> Int {
        let view = self.view
        var count = 0
        for index in 0..<header.rowCount where !view.isDeleted(index) && range.contains(view.row(index).price) {
            count += 1
        }
        return count
    }

    public func page(_ query: ItemPageQuery) throws -> [Item] {
        let order = try ensureOrderIndex()
        let segment = order.segment(priorityCode: Int(ItemFilter.priorityCode(query.priority)))
        let count = segment.count / 4
        guard query.offset < count else { return [] }
        let view = self.view
        return try (query.offset..<min(count, query.offset + query.limit)).map { position in
            let index = Int(UInt32(littleEndian: segment.loadUnaligned(fromByteOffset: 4 * position, as: UInt32.self)))
            guard index < header.rowCount else {
                throw PackedError.corrupted(
                    generation.appendingPathComponent(OrderIndex.fileName).path,
                    "it lists row \(index) of \(header.rowCount)")
            }
            return try view.item(at: index)
        }
    }

    @discardableResult
    private func ensureOrderIndex() throws -> OrderIndex {
        if let order { return order }
        var next = header
        next.orderIndexSequence = header.sequence + 1
        let built = try OrderIndex.build(
            in: generation, sequence: next.orderIndexSequence, rows: rows.bytes, rowCount: header.rowCount,
            isDeleted: isDeleted, arena: arena.bytes, flushes: flushes)
        try commit(next, appendedRows: false, appendedStrings: false)
        order = built
        return built
    }

    private func dropOrderIndex() {
        order?.close()
        order = nil
    }

    public func update(_ updates: [ItemUpdate]) throws {
        if header.titlesAreUnique {
            try checkUniqueTitles(updates.map { ($0.id, $0.title) }, replacing: Set(updates.map(\.id)))
        }
        var next = header
        var strings: [UInt8] = []
        var changed: [Int: ItemRow] = [:]
        // Titles this batch appended, not yet in the arena: an id updated twice compares against its first update.
        var newTitles: [Int: String] = [:]
        for update in updates {
            // As SQL's UPDATE … WHERE id = ?, an id that is not stored changes nothing.
            guard let index = liveRow(id: update.id) else { continue }
            var image = changed[index] ?? row(index)
            next.counts[image.filterKey] -= 1
            if try update.title != newTitles[index] ?? view.string(image.title) {
                next.deadArenaBytes += image.title.length
                image.title = try Self.append(update.title, to: &strings, arenaLength: next.arenaLength, id: update.id)
                newTitles[index] = update.title
            }
            image.price = update.price
            image.flags = ItemFilter(priority: image.filter.priority, isInStock: update.isInStock).code
            let arenaBytes = view.arena
            let notes = UnsafeRawBufferPointer(
                rebasing: arenaBytes[image.notes.offset..<image.notes.offset + image.notes.length])
            if let title = newTitles[index] {
                image.seal(title: title, notes: notes)
            } else {
                image.checksum = image.checksum(
                    title: UnsafeRawBufferPointer(
                        rebasing: arenaBytes[image.title.offset..<image.title.offset + image.title.length]),
                    notes: notes)
            }
            next.counts[image.filterKey] += 1
            changed[index] = image
        }
        guard !changed.isEmpty else { return }
        var records: [UInt8] = []
        records.reserveCapacity(changed.count * Self.journalRecordSize)
        for (index, image) in changed.sorted(by: { $0.key < $1.key }) {
            Self.appendRecord(.rowImage, row: index, image: image, to: &records)
        }
        try strings.withUnsafeBytes { try arena.write($0, at: header.arenaLength) }
        next.arenaLength += strings.count
        next.orderIndexSequence = 0
        try commit(next, inPlace: records, appendedRows: false, appendedStrings: !strings.isEmpty)
        dropOrderIndex()
        liveTitles = nil
    }

    public func delete(ids: [Int64]) throws {
        var next = header
        try delete(ids: ids, committing: &next)
    }

    /// Deletes the live items among `ids` in one commit of `next` (which may carry other changes).
    private func delete(ids: [Int64], committing next: inout StoreHeader) throws {
        var deleted = Set<Int>()
        for id in ids {
            guard let index = liveRow(id: id), deleted.insert(index).inserted else { continue }
            let image = row(index)
            next.counts[image.filterKey] -= 1
            next.deadArenaBytes += image.title.length + image.notes.length
        }
        guard !deleted.isEmpty || next != header else { return }
        var records: [UInt8] = []
        records.reserveCapacity(deleted.count * Self.journalRecordSize)
        for index in deleted.sorted() { Self.appendRecord(.tombstone, row: index, image: nil, to: &records) }
        next.orderIndexSequence = 0
        try commit(next, inPlace: records, appendedRows: false, appendedStrings: false)
        idIndex = nil
        liveTitles = nil
        dropOrderIndex()
    }

    // MARK: Unique titles

    /// An array store's way: one pass over the live rows in id order with a set of the titles seen, the later
    /// duplicates deleted and the flag `titlesAreUnique` set in the same commit. From then on a write checks its
    /// titles against an in-memory set of the live titles (built on the first write), as there is no index.
    public func migrateToUniqueTitles() throws -> Int {
        var seen = Set<String>()
        var duplicates: [Int64] = []
        try forEachItem { item in
            if !seen.insert(item.title).inserted { duplicates.append(item.id) }
        }
        var next = header
        next.titlesAreUnique = true
        try delete(ids: duplicates, committing: &next)
        liveTitles = seen
        return duplicates.count
    }

    /// Refuses writes that would give item ids their titles if another live item, or another write in the same
    /// batch, has that title; the titles of `replacing` (items being updated) do not count.
    private func checkUniqueTitles(_ writes: [(id: Int64, title: String)], replacing: Set<Int64> = []) throws {
        if liveTitles == nil {
            var titles = Set<String>()
            try forEachItem { titles.insert($0.title) }
            liveTitles = titles
        }
        var replaced = Set<String>()
        for id in replacing { if let index = liveRow(id: id) { replaced.insert(try view.string(row(index).title)) } }
        var batch = Set<String>()
        for (id, title) in writes
        where !batch.insert(title).inserted || (liveTitles!.contains(title) && !replaced.contains(title)) {
            throw PackedError(
                "storing item \(id) in \(rows.path): its title \"\(title)\" is another item's; titles are unique")
        }
    }

    // MARK: Compaction

    /// Rewrites the store without deleted rows and unreferenced strings, into a new generation directory that
    /// replaces the old one atomically (`CURRENT` is renamed over). A crash before the rename leaves the old store.
    public func compact() throws {
        let number = Int(generation.lastPathComponent.dropFirst()) ?? 1
        let target = directory.appendingPathComponent("g\(number + 1)")
        try FileSystem.remove(target)
        try FileSystem.makeDirectory(target)
        let (newRows, newArena, newTombstones, newJournal) = try Self.openFiles(in: target, flushes: flushes)
        var compacted = StoreHeader()
        compacted.rowsAscendByID = true
        compacted.titlesAreUnique = header.titlesAreUnique
        var strings: [UInt8] = []
        var rowBytes = [UInt8](repeating: 0, count: ItemRow.size)
        var previous = Int64.min
        let liveRows =
            header.rowsAscendByID ? (0..<header.rowCount).filter { !isDeleted($0) } : idPermutation().map(Int.init)
        for index in liveRows {
            var image = row(index)
            for keyPath in [\ItemRow.title, \ItemRow.notes] {
                let reference = image[keyPath: keyPath]
                image[keyPath: keyPath] = ItemRow.StringReference(
                    offset: compacted.arenaLength + strings.count, length: reference.length)
                strings.append(contentsOf: arena.bytes[reference.offset..<reference.offset + reference.length])
            }
            rowBytes.withUnsafeMutableBytes { image.write(into: $0, at: 0) }
            try rowBytes.withUnsafeBytes {
                try newRows.write($0, at: StoreHeader.rowsStart + compacted.rowCount * ItemRow.size)
            }
            compacted.rowsAscendByID = compacted.rowsAscendByID && image.id > previous
            previous = image.id
            compacted.rowCount += 1
            compacted.counts[image.filterKey] += 1
            if strings.count >= 1 << 24 {
                try strings.withUnsafeBytes { try newArena.write($0, at: compacted.arenaLength) }
                compacted.arenaLength += strings.count
                strings.removeAll(keepingCapacity: true)
            }
        }
        try strings.withUnsafeBytes { try newArena.write($0, at: compacted.arenaLength) }
        compacted.arenaLength += strings.count
        // Sequence 0 lives in slot 0, like a new store's first state; the next commit writes slot 1.
        compacted.sequence = 0
        var slots = compacted.encode()
        slots += [UInt8](repeating: 0, count: StoreHeader.slotSize)
        try slots.withUnsafeBytes { try newRows.write($0, at: 0) }
        try newTombstones.truncate(to: FileMagic.headerSize + (compacted.rowCount + 7) / 8)
        for file in [newRows, newArena, newTombstones, newJournal] {
            try file.sync()
            file.close()
        }
        let current = Data("\(target.lastPathComponent)\n".utf8)
        if flushes {
            try FileSystem.syncDirectory(target)
            try FileSystem.writeDurably(current, to: directory.appendingPathComponent("CURRENT"))
        } else {
            try FileSystem.writeAtomically(current, to: directory.appendingPathComponent("CURRENT"))
        }
        closeFiles()
        idIndex = nil
        inPlaceUnflushed = false
        let old = generation
        generation = target
        (rows, arena, tombstones, journal) = try Self.openFiles(in: generation, flushes: flushes)
        try recover()
        try FileManager.default.removeItem(at: old)
    }
}
