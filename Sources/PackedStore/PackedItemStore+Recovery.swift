import Foundation
import PersistenceBench

/// Opening and recovery: the generation `CURRENT` names, its files mapped, an interrupted commit's journal replayed.
extension PackedItemStore {
    /// The generation directory `CURRENT` names; a new store gets `g1`.
    ///
    /// Leftovers of an interrupted `compact` (other `g<N>` directories holding only a generation's files) are removed;
    /// nothing else is.
    ///
    /// Throws `PackedError.corrupted` rather than create or remove what it cannot vouch for: a `CURRENT` that names
    /// a generation that is not there, or no `CURRENT` beside a `g<N>` that is not the empty `g1` a creation cut
    /// short leaves (a creation makes `g1`, then writes `CURRENT`, then the files).
    static func currentGeneration(in directory: URL) throws -> URL {
        let current = directory.appendingPathComponent("CURRENT")
        let found = try generations(in: directory)
        let name: String
        if FileManager.default.fileExists(atPath: current.path) {
            guard let read = try? String(contentsOf: current, encoding: .utf8) else {
                throw PackedError.corrupted(current.path, "not text naming a generation")
            }
            let text = read.trimmingCharacters(in: .whitespacesAndNewlines)
            guard isGenerationName(text) else {
                throw PackedError.corrupted(current.path, "it names \"\(text)\", not a generation like g1")
            }
            guard found.contains(text) else {
                throw PackedError.corrupted(
                    current.path,
                    "it names \(text), which is not there (generations found: "
                        + "\(found.isEmpty ? "none" : found.joined(separator: ", ")))")
            }
            name = text
        } else {
            let first = directory.appendingPathComponent("g1")
            guard
                found.isEmpty
                    || (found == ["g1"]
                        && (try? FileManager.default.contentsOfDirectory(atPath: first.path))?.isEmpty == true)
            else {
                throw PackedError.corrupted(
                    current.path, "missing, beside \(found.joined(separator: ", ")): not a store this open made")
            }
            name = "g1"
            try FileSystem.makeDirectory(first)
            try FileSystem.writeDurably(Data("g1\n".utf8), to: current)
        }
        for entry in found where entry != name {
            let leftover = directory.appendingPathComponent(entry)
            if isLeftoverGeneration(leftover) { try FileManager.default.removeItem(at: leftover) }
        }
        return directory.appendingPathComponent(name)
    }

    /// Whether `name` is a generation's as this store writes one: `g` and a positive number, no sign or leading zero.
    static func isGenerationName(_ name: String) -> Bool {
        guard name.hasPrefix("g"), let number = Int(name.dropFirst()), number > 0 else { return false }
        return name == "g\(number)"
    }

    /// The names of the `g<N>` directories in `directory`, in order of N.
    static func generations(in directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { entry in
            var status = stat()
            return isGenerationName(entry) && lstat(directory.appendingPathComponent(entry).path, &status) == 0
                && status.st_mode & S_IFMT == S_IFDIR
        }.sorted { Int($0.dropFirst()) ?? 0 < Int($1.dropFirst()) ?? 0 }
    }

    /// The four files every generation holds, in the order `openFiles` returns them.
    static let dataFileNames = ["items.rows", "strings.arena", "items.tombstones", "items.journal"]

    /// Every file a generation may hold: its four, the order index and the index's temporary.
    static let generationFiles = Set(dataFileNames + [OrderIndex.fileName, OrderIndex.fileName + ".tmp"])

    /// Whether `url` is a directory (not a link to one) that holds one or more of a generation's files and
    /// nothing else, each a regular file: what a compaction cut short leaves, and what the open and the next
    /// compaction may remove.
    ///
    /// An empty directory is not one: nothing shows this store made it.
    static func isLeftoverGeneration(_ url: URL) -> Bool {
        var status = stat()
        guard lstat(url.path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR,
            let entries = try? FileManager.default.contentsOfDirectory(atPath: url.path), !entries.isEmpty
        else { return false }
        return entries.allSatisfy { entry in
            var file = stat()
            return generationFiles.contains(entry) && lstat(url.appendingPathComponent(entry).path, &file) == 0
                && file.st_mode & S_IFMT == S_IFREG
        }
    }

    /// Opens the generation's four files, creating those missing (their names durable before the open returns).
    static func openFiles(in generation: URL, flushes: Bool, randomAccess: Bool) throws -> (
        MappedFile, MappedFile, MappedFile, MappedFile
    ) {
        let files = try MappedFile.openAll(
            dataFileNames, in: generation, flushes: flushes,
            randomAccess: randomAccess)
        let (rows, arena, tombstones, journal) = (files[0], files[1], files[2], files[3])
        try FileMagic.prepare(arena, magic: "PBARENA")
        try FileMagic.prepare(tombstones, magic: "PBTOMBS")
        try FileMagic.prepare(journal, magic: "PBJOURN")
        return (rows, arena, tombstones, journal)
    }

    /// Reads the committed state, cuts off what was written after it, and replays its journal.
    ///
    /// A slot it does not trust (an append whose rows did not all reach the disk) is erased, and the erasure
    /// flushed, before the open returns: the next commit reuses that slot's sequence and writes its rows where the
    /// untrusted append's were, and a crash before its own slot lands would otherwise leave the old slot to vouch
    /// for rows it never wrote.
    func recover() throws {
        if rows.length < StoreHeader.rowsStart {
            // A new store, or a creation cut before its slots were written: nothing beyond the other files' magic.
            // Rows cut short beside strings, tombstones or a journal are a damaged store, not one to make again.
            guard [arena, tombstones, journal].allSatisfy({ $0.length <= FileMagic.headerSize }) else {
                throw PackedError.corrupted(
                    rows.path,
                    "\(rows.length) bytes, shorter than its two header slots (\(StoreHeader.rowsStart)), beside "
                        + "\(arena.length) bytes of strings: not a new store")
            }
            try initialize()
            return
        }
        let slots = try headerSlots()
        if slots.count == 1, let slot = slots.first {
            let other = 1 - slot.slot
            let bytes = rows.bytes[other * StoreHeader.slotSize..<(other + 1) * StoreHeader.slotSize]
            if bytes.contains(where: { $0 != 0 }) {
                recoveryNotes.append(
                    "header slot \(other) of \(rows.path) does not match its checksum: read slot \(slot.slot) "
                        + "(commit \(slot.sequence))")
            }
        }
        guard let newest = slots.max(by: { $0.sequence < $1.sequence }) else {
            // Neither slot whole, and nothing beyond the slots in any file: a creation cut before its slots were
            // flushed (a commit writes and flushes slot 0 before the first rows, strings or journal records).
            if rows.length == StoreHeader.rowsStart, arena.length <= FileMagic.headerSize,
                journal.length <= FileMagic.headerSize
            {
                recoveryNotes.append("a store whose creation was cut before its header reached the disk: made again")
                try initialize()
                return
            }
            throw PackedError.corrupted(rows.path, "neither header slot has a valid checksum")
        }
        let committed = try trustedCommit(newest, among: slots)
        try cut(to: committed)
        header = committed
        let tombstoneBytes = FileMagic.headerSize + (committed.rowCount + 7) / 8
        if tombstones.length < tombstoneBytes {
            // Legitimate after a crash (the growth of an append is not flushed), but any deletion past its end is
            // gone unless this commit's journal holds it: said, so that a check of the files shows it.
            recoveryNotes.append(
                "\(tombstones.path): \(tombstones.length) bytes, short of the \(tombstoneBytes) its \(committed.rowCount) "
                    + "rows need: grown with zero bits")
        }
        try ensureTombstoneCapacity(rowCount: committed.rowCount)
        try replayJournal()
        order = try OrderIndex.open(in: generation, sequence: header.orderIndexSequence)
        try publish()
    }

    /// The commit to open at: the newest, or the one before it where the newest's appended rows did not all reach the
    /// disk (the newest's header slot then erased and flushed).
    private func trustedCommit(_ newest: StoreHeader, among slots: [StoreHeader]) throws -> StoreHeader {
        let previous = slots.first { $0.sequence + 1 == newest.sequence }
        guard newest.appendedWithSlot, let problem = damageToAppendedRows(of: newest, previous: previous) else {
            return newest
        }
        // The append's rows and strings were flushed with its slot: a crash before that flush finished left them
        // partly written. The previous commit, flushed whole before this one began, is the state.
        guard let previous else {
            throw PackedError.corrupted(
                rows.path, "the rows its last commit appended are damaged (\(problem)) and no earlier commit is kept")
        }
        try ZeroSlot.bytes.withUnsafeBytes { try rows.write($0, at: newest.slot * StoreHeader.slotSize) }
        try rows.sync()
        recoveryNotes.append(
            "commit \(newest.sequence) not trusted (\(problem)): opened to commit \(previous.sequence), and commit "
                + "\(newest.sequence)'s header slot erased")
        return previous
    }

    /// Cuts off the rows and strings appended after `committed`, which are not part of the store; a file shorter
    /// than it commits is damage.
    private func cut(to committed: StoreHeader) throws {
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
    }

    /// A new store, or one whose creation was interrupted: an initial state in slot 0 and an empty slot 1, flushed
    /// with the other files' headers (every later write keeps both slots).
    private func initialize() throws {
        let initial = StoreHeader()
        var bytes = initial.encode()
        bytes += ZeroSlot.bytes
        try bytes.withUnsafeBytes { try rows.write($0, at: 0) }
        for file in [rows, arena, tombstones, journal] { try file.sync() }
        header = initial
        try publish()
    }

    /// An empty header slot: what `initialize()` leaves in slot 1, and what an untrusted slot is erased to.
    private enum ZeroSlot {
        static let bytes = [UInt8](repeating: 0, count: StoreHeader.slotSize)
    }

    /// The header slots whose checksums hold (none, one or two), as they are in `items.rows` now.
    func headerSlots() throws -> [StoreHeader] {
        try (0..<2).compactMap { slot in
            try StoreHeader.decode(
                UnsafeRawBufferPointer(
                    rebasing: rows.bytes[slot * StoreHeader.slotSize..<(slot + 1) * StoreHeader.slotSize]),
                path: rows.path)
        }
    }

    /// What is wrong with the rows `state` appended, read back from the files: nil when they are all there, each
    /// whole (see `MappedView.damage(ofRow:arenaLength:)`), and, when `previous` is the commit before it, adding up
    /// to the difference between the two commits' per-filter counts (an append deletes nothing).
    func damageToAppendedRows(of state: StoreHeader, previous: StoreHeader?) -> String? {
        let rowBytes = StoreHeader.rowsStart + state.rowCount * ItemRow.size
        guard rows.length >= rowBytes else { return "\(rows.length) bytes of rows, \(rowBytes) committed" }
        guard arena.length >= state.arenaLength else {
            return "\(arena.length) bytes of strings, \(state.arenaLength) committed"
        }
        let view = self.view
        var appended = [Int](repeating: 0, count: state.counts.count)
        for index in state.appendedRowsFrom..<state.rowCount {
            if let problem = view.damage(ofRow: index, arenaLength: state.arenaLength) {
                return "row \(index): \(problem)"
            }
            appended[view.row(index).filterKey] += 1
        }
        if let previous, previous.rowCount == state.appendedRowsFrom {
            let committed = zip(state.counts, previous.counts).map { $0 - $1 }
            if appended != committed {
                return "rows \(state.appendedRowsFrom)..<\(state.rowCount) add \(appended) per filter, the commit "
                    + "counted \(committed)"
            }
        }
        return nil
    }

    /// Applies the committed journal again (its changes are idempotent row images and tombstones) and flushes.
    func replayJournal() throws {
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
}
