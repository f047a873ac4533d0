import Foundation
import PersistenceBench

/// Opening and recovery: the generation `CURRENT` names, its files mapped, an interrupted commit's journal replayed.
extension PackedItemStore {
    /// The generation directory `CURRENT` names; a new store gets `g1`. Leftovers of an interrupted `compact`
    /// (other `g*` directories) are removed.
    static func currentGeneration(in directory: URL) throws -> URL {
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

    /// Opens the generation's four files, creating those missing (their names durable before the open returns).
    static func openFiles(in generation: URL, flushes: Bool) throws -> (
        MappedFile, MappedFile, MappedFile, MappedFile
    ) {
        let files = try MappedFile.openAll(
            ["items.rows", "strings.arena", "items.tombstones", "items.journal"], in: generation, flushes: flushes)
        let (rows, arena, tombstones, journal) = (files[0], files[1], files[2], files[3])
        try FileMagic.prepare(arena, magic: "PBARENA")
        try FileMagic.prepare(tombstones, magic: "PBTOMBS")
        try FileMagic.prepare(journal, magic: "PBJOURN")
        return (rows, arena, tombstones, journal)
    }

    /// Reads the committed state, cuts off what was written after it, and replays its journal.
    func recover() throws {
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
        guard let newest = slots.max(by: { $0.sequence < $1.sequence }) else {
            throw PackedError.corrupted(rows.path, "neither header slot has a valid checksum")
        }
        var committed = newest
        if newest.appendedWithSlot, let problem = damageToAppendedRows(of: newest) {
            // The append's rows and strings were flushed with its slot: a crash before that flush finished left
            // them partly written. The previous commit, flushed whole before this one began, is the state.
            guard let previous = slots.first(where: { $0.sequence + 1 == newest.sequence }) else {
                throw PackedError.corrupted(
                    rows.path,
                    "the rows its last commit appended are damaged (\(problem)) and no earlier commit is kept")
            }
            committed = previous
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

    /// What is wrong with the rows `state` appended, read back from the files: nil when they are all there, each
    /// whole (see `MappedView.damage(ofRow:arenaLength:)`).
    func damageToAppendedRows(of state: StoreHeader) -> String? {
        let rowBytes = StoreHeader.rowsStart + state.rowCount * ItemRow.size
        guard rows.length >= rowBytes else { return "\(rows.length) bytes of rows, \(rowBytes) committed" }
        guard arena.length >= state.arenaLength else {
            return "\(arena.length) bytes of strings, \(state.arenaLength) committed"
        }
        let view = self.view
        for index in state.appendedRowsFrom..<state.rowCount {
            if let problem = view.damage(ofRow: index, arenaLength: state.arenaLength) {
                return "row \(index): \(problem)"
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
