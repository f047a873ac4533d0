import Foundation
import PersistenceBench
import Testing

@testable import PackedStore

/// What the `packed` store adds to the conformance suite: crash recovery at every step of a commit, clear errors
/// for damaged files, compaction, and ids that do not arrive in order.
@Suite struct PackedStoreTests {
    let generator = ItemGenerator(seed: 11)

    enum Change: CaseIterable, Sendable {
        case insert, update, delete
    }

    /// Runs `change` against `store` and applies it to `expected`, as a store that committed it would hold.
    func apply(_ change: Change, to store: PackedItemStore, expected: inout [Item]) throws {
        switch change {
        case .insert:
            let items = generator.items(301...400)
            expected += items
            try store.insert(items)
        case .update:
            let updates = [1, 2, 3, 250].map { generator.update(id: Int64($0)) }
            for update in updates {
                if let index = expected.firstIndex(where: { $0.id == update.id }) { update.apply(to: &expected[index]) }
            }
            try store.update(updates)
        case .delete:
            expected.removeAll { [4, 300].contains($0.id) }
            try store.delete(ids: [4, 300])
        }
    }

    @Test(arguments: PackedItemStore.CommitStep.allCases, Change.allCases)
    func aCrashAtAnyStepOfACommitReopensToTheLastCommittedState(step: PackedItemStore.CommitStep, change: Change)
        throws
    {
        let directory = try TemporaryDirectory()
        var committed = generator.items(1...300)
        let store = try PackedItemStore(directory: directory.url)
        try store.insert(committed)
        // Earlier in-place changes, so that the journal and unflushed rows are in play.
        let earlier = [10, 20, 30].map { generator.update(id: Int64($0)) }
        try store.update(earlier)
        for update in earlier { update.apply(to: &committed[Int(update.id) - 1]) }
        try store.delete(ids: [7])
        committed.removeAll { $0.id == 7 }

        var changed = committed
        store.crashAt = step
        #expect(throws: PackedItemStore.SimulatedCrash.self) { try apply(change, to: store, expected: &changed) }
        // The crashed store is abandoned as a dead process would leave it; a new one opens the same files.
        let reopened = try PackedItemStore(directory: directory.url)
        let expected = [.afterHeader, .halfwayInPlace].contains(step) ? changed : committed
        #expect(try allItems(in: reopened) == expected)
        for filter in ItemFilter.all {
            #expect(try reopened.count(where: filter) == expected.filter(filter.matches).count)
        }
        let page = try reopened.page(ItemPageQuery(priority: .high, limit: 20, offset: 0))
        #expect(
            page
                == Array(
                    expected.filter { $0.priority == .high }.sorted(by: ItemPageQuery.areInIncreasingOrder).prefix(20)))
        // And it goes on working.
        try reopened.delete(ids: [expected[0].id])
        #expect(try reopened.item(id: expected[0].id) == nil)
        try reopened.close()
        _ = store
    }

    @Test func aDamagedFileIsAnErrorNamingIt() throws {
        let directory = try TemporaryDirectory()
        let store = try PackedItemStore(directory: directory.url)
        try store.insert(generator.items(1...50))
        // The rows of the last append are checked at open (and dropped if damaged: the next test); the damage
        // below is to the one before.
        try store.insert(generator.items(51...60))
        try store.close()
        let generation = directory.url.appendingPathComponent("g1")

        let arena = generation.appendingPathComponent("strings.arena")
        let arenaBytes = try Data(contentsOf: arena)
        var damagedArena = arenaBytes
        damagedArena[0] = UInt8(ascii: "X")
        try damagedArena.write(to: arena)
        #expect {
            try PackedItemStore(directory: directory.url)
        } throws: { error in
            "\(error)".contains(arena.path) && "\(error)".contains("PBARENA magic")
        }
        try arenaBytes.write(to: arena)

        let rows = generation.appendingPathComponent("items.rows")
        let rowBytes = try Data(contentsOf: rows)
        // Item 1's title reference now points far beyond the arena.
        var damagedRow = rowBytes
        damagedRow[StoreHeader.rowsStart + 24 + 7] = 0x7F
        try damagedRow.write(to: rows)
        let damaged = try PackedItemStore(directory: directory.url)
        #expect(try damaged.item(id: 2) == generator.item(id: 2))
        #expect {
            _ = try damaged.item(id: 1)
        } throws: { error in
            "\(error)".contains(arena.path) && "\(error)".contains("a row refers to bytes")
        }
        #expect(throws: PackedError.self) { try damaged.forEachItem { _ in } }
        try damaged.close()
        try rowBytes.write(to: rows)

        var damagedRows = rowBytes
        damagedRows[20] ^= 0xFF
        damagedRows[StoreHeader.slotSize + 20] ^= 0xFF
        try damagedRows.write(to: rows)
        #expect {
            try PackedItemStore(directory: directory.url)
        } throws: { error in
            "\(error)".contains(rows.path) && "\(error)".contains("neither header slot has a valid checksum")
        }
    }

    /// An append flushes its rows and strings with its header slot: a power cut can leave the slot on disk and any
    /// of those pages not.
    ///
    /// The open checks the rows the last commit appended and opens to the commit before it when any is missing or does
    /// not match its checksum.
    @Test(arguments: ["rows cut short", "strings missing", "a row zeroed"])
    func anAppendWhoseRowsDidNotAllReachTheDiskOpensToTheCommitBeforeIt(damage: String) throws {
        let directory = try TemporaryDirectory()
        let store = try PackedItemStore(directory: directory.url)
        let first = generator.items(1...200)
        try store.insert(first)
        try store.insert(generator.items(201...300))
        #expect(store.state.appendedWithSlot && store.state.appendedRowsFrom == 200)
        let arenaFrom = store.state.arenaLength - 1
        try store.close()
        let generation = directory.url.appendingPathComponent("g1")
        let rows = generation.appendingPathComponent("items.rows")
        let arena = generation.appendingPathComponent("strings.arena")
        switch damage {
        case "rows cut short":
            let handle = try FileHandle(forWritingTo: rows)
            try handle.truncate(atOffset: UInt64(StoreHeader.rowsStart + 250 * ItemRow.size))
            try handle.close()
        case "strings missing":
            var bytes = try Data(contentsOf: arena)
            bytes.replaceSubrange((arenaFrom - 100)..<arenaFrom, with: [UInt8](repeating: 0, count: 100))
            try bytes.write(to: arena)
        default:
            var bytes = try Data(contentsOf: rows)
            let row = StoreHeader.rowsStart + 299 * ItemRow.size
            bytes.replaceSubrange(row..<row + ItemRow.size, with: [UInt8](repeating: 0, count: ItemRow.size))
            try bytes.write(to: rows)
        }
        let reopened = try PackedItemStore(directory: directory.url)
        #expect(try allItems(in: reopened) == first)
        #expect(reopened.state.rowCount == 200)
        try reopened.checkIntegrity()
        // And it goes on: the lost append made again.
        try reopened.insert(generator.items(201...300))
        #expect(try allItems(in: reopened) == generator.items(1...300))
        try reopened.close()
    }

    /// Two crashes in a row: an insert's slot reached the disk and a page of its rows did not; the open fell back
    /// to the commit before.
    ///
    /// The app went on and inserted again (the same sequence, the same slot, rows where the untrusted append's were),
    /// and a second crash came after its rows and strings reached the disk, before its slot did. The old slot must not
    /// vouch for the new rows: not for other items (whose rows pass their own checks), and not for the same items
    /// retried (byte for byte the rows the old slot counted).
    @Test(arguments: ["other items", "the lost insert retried, and more"])
    func aSlotTheOpenFellBackFromNeverVouchesForALaterAppend(secondInsert: String) throws {
        let directory = try TemporaryDirectory()
        let store = try PackedItemStore(directory: directory.url)
        try store.insert(generator.items(1...1000))
        try store.insert(generator.items(1001...2000))
        try store.insert(generator.items(2001...3000))
        #expect(store.state.sequence == 3 && store.state.slot == 1)
        try store.close()
        // The first cut: one 4 KiB page of commit 3's rows never reached the disk.
        let rows = directory.url.appendingPathComponent("g1/items.rows")
        var bytes = try Data(contentsOf: rows)
        let page = (StoreHeader.rowsStart + 2500 * ItemRow.size) / 4096 * 4096
        bytes.replaceSubrange(page..<page + 4096, with: [UInt8](repeating: 0, count: 4096))
        try bytes.write(to: rows)

        let recovered = try PackedItemStore(directory: directory.url)
        #expect(recovered.state.sequence == 2)
        #expect(recovered.recoveryNotes.count == 1 && recovered.recoveryNotes[0].contains("commit 3 not trusted"))
        #expect(try recovered.headerSlots().map(\.sequence) == [2])
        // The second cut: the next insert's rows and strings written, its slot not.
        let next = secondInsert == "other items" ? generator.items(3001...5000) : generator.items(2001...4000)
        recovered.crashAt = .beforeHeader
        #expect(throws: PackedItemStore.SimulatedCrash.self) { try recovered.insert(next) }

        let reopened = try PackedItemStore(directory: directory.url)
        #expect(reopened.state.sequence == 2)
        #expect(try allItems(in: reopened) == generator.items(1...2000))
        try reopened.checkIntegrity()
        try reopened.close()
        _ = recovered
    }

    /// A power cut before a new store's first header write reached the disk can leave `items.rows` at its full
    /// 8 KiB with neither slot whole: nothing was ever committed, and the open makes the store again.
    ///
    /// The same with a row appended would be damage, and stays an error.
    @Test func aCreationCutBeforeItsHeaderReachedTheDiskOpensAsANewStore() throws {
        let directory = try TemporaryDirectory()
        try PackedItemStore(directory: directory.url).close()
        let rows = directory.url.appendingPathComponent("g1/items.rows")
        try Data(count: StoreHeader.rowsStart).write(to: rows)
        let made = try PackedItemStore(directory: directory.url)
        #expect(made.recoveryNotes.count == 1 && made.recoveryNotes[0].contains("creation was cut"))
        #expect(try allItems(in: made).isEmpty)
        try made.insert(generator.items(1...10))
        try made.close()
        #expect(try allItems(in: PackedItemStore(directory: directory.url)) == generator.items(1...10))

        try Data(count: StoreHeader.rowsStart + ItemRow.size).write(to: rows)
        #expect {
            try PackedItemStore(directory: directory.url)
        } throws: { error in
            "\(error)".contains("neither header slot has a valid checksum")
        }
    }

    /// Pages come from a radix sort on the titles' first 16 bytes, then whole titles, then ids: titles that tie on
    /// those bytes, are prefixes of one another, are empty, repeat, or hold bytes above 0x7F still come in
    /// `ItemPageQuery`'s order, in runs long enough to be radix-sorted and short enough to be compared.
    @Test func pagesKeepTheirOrderWhereTitlesTieOnTheirFirstSixteenBytes() throws {
        let directory = try TemporaryDirectory()
        let store = try PackedItemStore(directory: directory.url)
        let stems = [
            "", "a", "ab", "Umbrella zzzzzzz", "Umbrella zzzzzzzz", "Umbrella zzzzzzzza", "Ümbrella", "\u{7F}",
        ]
        var rng = SplitMix64(seed: 5)
        let items = (1...3000).map { id in
            var item = generator.item(id: Int64(id))
            let stem = stems[Int(rng.below(UInt64(stems.count)))]
            item.title = rng.below(3) == 0 ? stem : stem + String(UInt8(rng.below(40)) + 48, radix: 36)
            return item
        }
        try store.insert(items.shuffled(using: &rng))
        for priority in [nil] + Item.Priority.allCases.map(Optional.some) {
            let expected = items.filter { $0.priority == priority }.sorted(by: ItemPageQuery.areInIncreasingOrder)
            let page = try store.page(ItemPageQuery(priority: priority, limit: expected.count + 1, offset: 0))
            #expect(page == expected)
        }
        try store.close()
    }

    @Test func compactReclaimsDeletedRowsAndDeadStrings() throws {
        let directory = try TemporaryDirectory()
        let store = try PackedItemStore(directory: directory.url)
        var expected = generator.items(1...2000)
        try store.insert(expected)
        let updates = (1...400).map { generator.update(id: Int64($0 * 5)) }
        try store.update(updates)
        for update in updates { update.apply(to: &expected[Int(update.id) - 1]) }
        let deleted = Set((1...600).map { Int64($0 * 3) })
        try store.delete(ids: Array(deleted))
        expected.removeAll { deleted.contains($0.id) }
        #expect(store.state.deadArenaBytes > 0)
        let before = try PackedItemStore.bytesOnDisk(at: directory.url)

        try store.compact()
        #expect(try allItems(in: store) == expected)
        #expect(store.state.deadArenaBytes == 0)
        #expect(store.state.rowCount == expected.count)
        #expect(try PackedItemStore.bytesOnDisk(at: directory.url) < before)
        #expect(!FileManager.default.fileExists(atPath: directory.url.appendingPathComponent("g1").path))
        try store.insert(generator.items(2001...2010))
        try store.close()

        let reopened = try PackedItemStore(directory: directory.url)
        #expect(try allItems(in: reopened) == expected + generator.items(2001...2010))
        try reopened.close()
    }

    @Test func sparseAscendingIdsAreFound() throws {
        let directory = try TemporaryDirectory()
        let store = try PackedItemStore(directory: directory.url)
        let ids: [Int64] = [-7, 1, 2, 3, 1000, 1_000_000, 1_000_001, Int64.max - 1]
        let items = ids.map { id in
            var item = generator.item(id: 1)
            item.id = id
            return item
        }
        try store.insert(Array(items[..<4]))
        try store.insert(Array(items[4...]))
        for item in items { #expect(try store.item(id: item.id) == item) }
        for missing: Int64 in [Int64.min, -6, 0, 4, 999, 1001, 999_999, 1_000_002, Int64.max] {
            #expect(try store.item(id: missing) == nil)
        }
        try store.close()
    }

    @Test func idsOutOfOrderAreServedInOrderAndDuplicatesRefused() throws {
        let directory = try TemporaryDirectory()
        let store = try PackedItemStore(directory: directory.url)
        let items = generator.items(1...12)
        try store.insert([items[8], items[2], items[4]])
        try store.insert([items[0]])
        #expect(try allItems(in: store) == [items[0], items[2], items[4], items[8]])
        #expect(try store.item(id: 3) == items[2])
        #expect {
            try store.insert([items[10], items[2]])
        } throws: { error in
            "\(error)".contains("inserting item 3")
        }
        try store.delete(ids: [3])
        try store.insert([items[2]])
        #expect(try store.item(id: 3) == items[2])
        #expect(try store.count(where: ItemFilter(priority: items[2].priority, isInStock: items[2].isInStock)) >= 1)
        try store.close()
    }
}

/// `packed`'s graph files: an interrupted commit leaves the last committed houses.
@Suite struct PackedGraphTests {
    @Test func bytesAppendedAfterTheLastCommitAndATornSlotAreCutOffOnOpen() throws {
        let directory = try TemporaryDirectory()
        let generator = HouseGenerator(seed: 4, scale: 200)
        let houses = generator.houses(1...20)
        let store = try PackedItemStore(directory: directory.url)
        try store.insert(houses: Array(houses[..<15]))
        try store.deleteHouses(ids: [3])
        try store.close()
        // A commit that appended rooms, strings and a deletion, then tore its state slot: the 3rd commit writes
        // slot 1 (sequences 1 and 2 went to slots 1 and 0).
        let graph = directory.url.appendingPathComponent("graph")
        for name in ["rooms.rows", "graph.arena", "houses.deleted"] {
            let handle = try FileHandle(forWritingTo: graph.appendingPathComponent(name))
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(repeating: 0xAB, count: 100))
            try handle.close()
        }
        let state = try FileHandle(forWritingTo: graph.appendingPathComponent("graph.state"))
        try state.seek(toOffset: UInt64(AppendOnlyFiles.slotSize + 16))
        try state.write(contentsOf: Data(repeating: 0xCD, count: 64))
        try state.close()

        let reopened = try PackedItemStore(directory: directory.url)
        var read: [House] = []
        try reopened.forEachHouse { read.append($0) }
        let expected = houses[..<15].filter { $0.id != 3 }
        #expect(read == Array(expected))
        #expect(
            try reopened.houseCounts()
                == HouseCounts(
                    houses: 14, floors: expected.reduce(0) { $0 + $1.floors.count },
                    rooms: expected.reduce(0) { $0 + $1.floors.reduce(0) { $0 + $1.rooms.count } }))
        try reopened.insert(houses: Array(houses[15...]))
        read = []
        try reopened.forEachHouse { read.append($0) }
        #expect(read == Array(expected) + houses[15...])
        #expect(throws: PackedError.self) { try reopened.deleteHouses(ids: [3]) }
        try reopened.close()
    }
}
