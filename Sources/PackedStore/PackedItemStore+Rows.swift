import Foundation
import PersistenceBench

/// The mapped rows as a view for reads, and the searches over it: by id (binary search, or a permutation once ids
/// arrive out of order), live or deleted.
extension PackedItemStore {
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

        /// Where row `index`'s title is in the arena, read without decoding the rest of the row.
        @inline(__always)
        func titleReference(ofRow index: Int) -> ItemRow.StringReference {
            ItemRow.StringReference(
                packed: UInt64(
                    littleEndian: rows.loadUnaligned(
                        fromByteOffset: StoreHeader.rowsStart + index * ItemRow.size + 24, as: UInt64.self)))
        }

        /// Row `index`'s `ItemRow.filterKey`, read without decoding the rest of the row.
        @inline(__always)
        func filterKey(ofRow index: Int) -> Int {
            Int(rows[StoreHeader.rowsStart + index * ItemRow.size + 40] & 0b111)
        }

        @inline(__always)
        func isDeleted(_ index: Int) -> Bool {
            tombstones[FileMagic.headerSize + index / 8] & UInt8(1) << (index % 8) != 0
        }

        /// The string's bytes, checked against the arena's committed length: a damaged row is an error, not a
        /// read outside the map.
        @inline(__always)
        func string(_ reference: ItemRow.StringReference) throws -> String {
            String(decoding: try bytes(reference), as: UTF8.self)
        }

        /// The string's UTF-8 bytes in the map, checked as `string(_:)` checks them.
        @inline(__always)
        func bytes(_ reference: ItemRow.StringReference) throws -> UnsafeBufferPointer<UInt8> {
            guard reference.offset >= FileMagic.headerSize, reference.offset <= arena.count,
                reference.length <= arena.count - reference.offset
            else {
                throw PackedError.corrupted(
                    arenaPath,
                    "a row refers to bytes \(reference.offset)..<\(reference.offset + reference.length) "
                        + "of \(arena.count)")
            }
            return UnsafeRawBufferPointer(rebasing: arena[reference.offset..<reference.offset + reference.length])
                .assumingMemoryBound(to: UInt8.self)
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
    func publish() throws {
        try readersLock.writing { try publishHoldingLock() }
    }

    /// `publish()` for a caller that holds `readersLock` alone.
    func publishHoldingLock() throws {
        guard let rowsMapping = rows.mapping, let arenaMapping = arena.mapping,
            let tombstonesMapping = tombstones.mapping
        else { throw PackedError("publishing the state of \(rows.path): its files are closed") }
        published = PackedSnapshot(
            state: header, rows: rowsMapping, arena: arenaMapping, tombstones: tombstonesMapping,
            arenaPath: arena.path)
        commits.committed()
    }

    func row(_ index: Int) -> ItemRow { view.row(index) }

    func isDeleted(_ index: Int) -> Bool { view.isDeleted(index) }

    /// The row holding live item `id`, or nil.
    func liveRow(id: Int64) -> Int? {
        Self.liveRow(id: id, in: view, state: header, permutation: idPermutation)
    }

    /// The first position in id order whose id is `id` or more (see the static form).
    func idLowerBound(_ id: Int64, in view: MappedView) -> Int {
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
    func idPermutation() -> [UInt32] {
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
}
