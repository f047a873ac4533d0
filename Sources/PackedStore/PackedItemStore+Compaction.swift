import Foundation
import PersistenceBench

/// Compaction: the store rewritten without deleted rows and unreferenced strings, in a new generation.
extension PackedItemStore {
    /// Rewrites the store without deleted rows and unreferenced strings, into a new generation directory that
    /// replaces the old one atomically (`CURRENT` is renamed over).
    ///
    /// A crash before the rename leaves the old store.
    package func compact() throws {
        let target = try newGeneration()
        let (newRows, newArena, newTombstones, newJournal) = try Self.openFiles(
            in: target, flushes: flushes, randomAccess: randomAccess)
        var compacted = StoreHeader()
        compacted.rowsAscendByID = true
        compacted.titlesAreUnique = header.titlesAreUnique
        try copyLiveRows(into: newRows, strings: newArena, header: &compacted)
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
        (rows, arena, tombstones, journal) = try Self.openFiles(
            in: generation, flushes: flushes, randomAccess: randomAccess)
        try recover()
        try FileManager.default.removeItem(at: old)
    }

    /// The next generation's directory, made empty: an earlier compaction's leftover there is removed, anything else
    /// in the way is an error.
    private func newGeneration() throws -> URL {
        let number = Int(generation.lastPathComponent.dropFirst()) ?? 1
        let target = directory.appendingPathComponent("g\(number + 1)")
        // A directory there is an earlier compaction's leftover, or not the store's to remove.
        if FileManager.default.fileExists(atPath: target.path) {
            guard Self.isLeftoverGeneration(target) else {
                throw PackedError.corrupted(
                    target.path, "in the way of a compaction, and not a generation of this store")
            }
            try FileManager.default.removeItem(at: target)
        }
        try FileSystem.makeDirectory(target)
        return target
    }

    /// Writes the live rows in id order into `newRows` and their strings into `newArena`, counting them in `compacted`.
    private func copyLiveRows(
        into newRows: MappedFile, strings newArena: MappedFile, header compacted: inout StoreHeader
    ) throws {
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
    }
}
