import Foundation
import PersistenceBench

/// `packed`'s items: appended rows and strings, updates through the journal, deletes as tombstones, pages from
/// sorted permutation arrays rebuilt when a query needs them.
extension PackedItemStore: ItemStore {
    package func insert(_ batch: [Item]) throws {
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
    static func encode(_ batch: [Item], arenaLength: Int, counts: inout [Int]) throws -> (
        rows: [UInt8], strings: [UInt8]
    ) {
        var strings: [UInt8] = []
        strings.reserveCapacity(batch.count * 128)
        var rows = [UInt8](repeating: 0, count: batch.count * ItemRow.size)
        try rows.withUnsafeMutableBytes { buffer in
            for (index, item) in batch.enumerated() {
                let start = strings.count
                let title = try append(item.title, to: &strings, arenaLength: arenaLength, id: item.id)
                let notes = try append(item.notes, to: &strings, arenaLength: arenaLength, id: item.id)
                var row = ItemRow(
                    id: item.id, price: item.price, createdAt: item.createdAt.timeIntervalSinceReferenceDate,
                    title: title, notes: notes, flags: ItemFilter(matching: item).code
                )
                // Sealed from the bytes just appended: the title's, then the notes'.
                row.checksum = strings.withUnsafeBytes { appended in
                    row.checksum(
                        title: UnsafeRawBufferPointer(rebasing: appended[start..<start + title.length]),
                        notes: UnsafeRawBufferPointer(rebasing: appended[(start + title.length)...]))
                }
                row.write(into: buffer, at: index * ItemRow.size)
                counts[row.filterKey] += 1
            }
        }
        return (rows, strings)
    }

    /// The rows and strings an insert of `batch` appends.
    package func storedBytes(of batch: [Item]) throws -> [UInt8] {
        var counts = header.counts
        let (rows, strings) = try Self.encode(batch, arenaLength: header.arenaLength, counts: &counts)
        return rows + strings
    }

    /// Appends a string's UTF-8 bytes to `strings`, which will be written at `arenaLength`.
    static func append(_ string: String, to strings: inout [UInt8], arenaLength: Int, id: Int64) throws
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
        var string = string
        string.withUTF8 { strings.append(contentsOf: $0) }
        return reference
    }

    package func insertDurably(_ item: Item) throws {
        try insert([item])
    }

    /// Builds the page index at the end of a bulk load, so that the load's time includes it.
    package func finishInserting() throws {
        try ensureOrderIndex()
    }

    package func item(id: Int64) throws -> Item? {
        try liveRow(id: id).map { try view.item(at: $0) }
    }

    package func forEachItem(_ body: (Item) throws -> Void) throws {
        // `body` must not change the store: the view is valid until the next write.
        let view = self.view
        if header.rowsAscendByID {
            for index in 0..<header.rowCount where !view.isDeleted(index) { try body(try view.item(at: index)) }
        } else {
            for index in idPermutation() { try body(try view.item(at: Int(index))) }
        }
    }

    package func items(startingAt id: Int64, limit: Int) throws -> [Item] {
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

    package func count(where filter: ItemFilter) throws -> Int {
        header.counts[Int(filter.code)]
    }

    /// A pass over every live row's price: no counter or index covers prices.
    package func count(pricedIn range: PriceRange) throws -> Int {
        let view = self.view
        var count = 0
        for index in 0..<header.rowCount where !view.isDeleted(index) && range.contains(view.row(index).price) {
            count += 1
        }
        return count
    }

    package func page(_ query: ItemPageQuery) throws -> [Item] {
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
    func ensureOrderIndex() throws -> OrderIndex {
        if let order { return order }
        var next = header
        next.orderIndexSequence = header.sequence + 1
        let built = try OrderIndex.build(
            in: generation, sequence: next.orderIndexSequence, view: view, rowCount: header.rowCount,
            liveCounts: header.counts, flushes: flushes)
        try commit(next, appendedRows: false, appendedStrings: false)
        order = built
        return built
    }

    func dropOrderIndex() {
        order?.close()
        order = nil
    }

    package func update(_ updates: [ItemUpdate]) throws {
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

    package func delete(ids: [Int64]) throws {
        var next = header
        try delete(ids: ids, committing: &next)
    }

    /// Deletes the live items among `ids` in one commit of `next` (which may carry other changes).
    func delete(ids: [Int64], committing next: inout StoreHeader) throws {
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
}
