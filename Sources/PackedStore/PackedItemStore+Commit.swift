import Foundation
import PersistenceBench

/// The commit protocol: the journal of in-place changes flushed, then the header's other slot written and flushed;
/// a crash at any step leaves the last committed header's state. Appended rows and strings are flushed before the
/// slot when the commit also changes rows in place, and with it when the commit only appends (an insert): an open
/// then trusts the slot only once the rows it appended read back whole (`recover()`).
extension PackedItemStore {
    /// Journal records: 64 bytes each, `[row: UInt64][kind: UInt64][48-byte row image or zeros]`, little-endian.
    enum JournalKind: UInt64 {
        case rowImage = 1, tombstone = 2
    }
    static let journalRecordSize = 64

    /// Makes `next` the committed state, with `inPlace` journal records applied after it.
    ///
    /// The caller has already written any appended rows and strings beyond the committed lengths.
    func commit(_ next: StoreHeader, inPlace: [UInt8] = [], appendedRows: Bool, appendedStrings: Bool) throws {
        var next = next
        next.sequence = header.sequence + 1
        next.appendedRowsFrom = header.rowCount
        // An append alone needs no flush before its slot: the rows' checksums (which cover their strings) tell an
        // open whether the append reached the disk whole. In-place changes refer to strings that no row check
        // covers, so a commit with any flushes what it appended first.
        next.appendedWithSlot = appendedRows && inPlace.isEmpty
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
        if !next.appendedWithSlot {
            if appendedStrings { try arena.sync() }
            if appendedRows { try rows.sync() }
        }
        try stop(at: .beforeHeader)
        let slot = next.encode()
        if crashAt == .tornHeader {
            try slot.withUnsafeBytes {
                try rows.write(
                    UnsafeRawBufferPointer(rebasing: $0[..<(StoreHeader.slotSize / 2)]),
                    at: next.slot * StoreHeader.slotSize)
            }
            throw simulatedCrash()
        }
        try slot.withUnsafeBytes { try rows.write($0, at: next.slot * StoreHeader.slotSize) }
        if next.appendedWithSlot && appendedStrings { try arena.sync() }
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

    /// A test's crash: the process it stands for has died, and the kernel released its lock, so that a new store
    /// can open the files the crashed one abandoned.
    func simulatedCrash() -> SimulatedCrash {
        lock.release()
        return SimulatedCrash()
    }

    func stop(at step: CommitStep) throws {
        if crashAt == step { throw simulatedCrash() }
    }

    func applyInPlace(_ records: UnsafeRawBufferPointer, stoppingHalfway: Bool) throws {
        let count = records.count / Self.journalRecordSize
        for index in 0..<count {
            if stoppingHalfway && index == count / 2 { throw simulatedCrash() }
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

    static func appendRecord(_ kind: JournalKind, row: Int, image: ItemRow?, to records: inout [UInt8]) {
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
    func ensureTombstoneCapacity(rowCount: Int) throws {
        let needed = FileMagic.headerSize + (rowCount + 7) / 8
        if tombstones.length < needed { try tombstones.truncate(to: needed) }
    }
}
