import CLMDB
import Foundation
import LMDBStore
import PersistenceBench
import Testing

/// What the `lmdb` store adds to the conformance suite: a growing map, the byte layout's edges, transactions
/// that end on error paths, clear errors for bad data, and files that LMDB's own tools open.
@Suite struct LMDBStoreTests {
    let generator = ItemGenerator(seed: 3)

    @Test func theMapGrowsByItselfAndTheStoreReopens() throws {
        let directory = try TemporaryDirectory()
        let store = try LMDBItemStore(directory: directory.url, mapSize: 64 << 10)
        let expected = generator.items(1...20_000)
        for start in stride(from: 0, to: expected.count, by: 5000) {
            try store.insert(Array(expected[start..<start + 5000]))
        }
        #expect(store.environment.resizeCount >= 3)
        #expect(store.environment.mapSize >= 2 << 20)
        #expect(try allItems(in: store) == expected)
        try store.close()
        let reopened = try LMDBItemStore(directory: directory.url, mapSize: 64 << 10)
        #expect(try reopened.count(where: ItemFilter(priority: nil, isInStock: true)) > 0)
        #expect(try allItems(in: reopened) == expected)
        try reopened.close()
    }

    /// A write begin is a lock wait when it found the writer mutex held (another write committed while it waited),
    /// as SQLite's busy handler counts one: uncontended writes count none, however the machine schedules them.
    @Test func aWriteThatFoundTheWriterMutexHeldIsOneLockWait() throws {
        let directory = try TemporaryDirectory()
        let store = try LMDBItemStore(directory: directory.url)
        for item in generator.items(1...50) { try store.insert([item]) }
        #expect(store.lockWaits == LockWaits())
        let holding = DispatchSemaphore(value: 0)
        let released = DispatchSemaphore(value: 0)
        nonisolated(unsafe) let environment = store.environment  // LMDB serializes writers with its mutex
        let scratch = try environment.openDatabase("scratch")
        let holder = Thread {
            // A write that changes nothing commits nothing (LMDB keeps its transaction id): this one writes a key.
            _ = try? environment.write { transaction in
                holding.signal()
                usleep(50_000)
                try withUnsafeBytes(of: 1) { try transaction.put(in: scratch, key: $0, value: $0) }
            }
            released.signal()
        }
        holder.start()
        holding.wait()
        try store.insert([generator.item(id: 51)])
        released.wait()
        #expect(store.lockWaits.waits == 1 && store.lockWaits.timeouts == 0)
        #expect(store.lockWaits.seconds > 0.02 && store.lockWaits.seconds < 5, "\(store.lockWaits)")
        try store.close()
    }

    @Test func fieldsAtTheEdgesOfTheLayoutRoundTrip() throws {
        let directory = try TemporaryDirectory()
        let store = try LMDBItemStore(directory: directory.url)
        let edges = [
            Item(
                id: -5, title: "négatif ✓", notes: String(repeating: "long notes need a two-byte length. ", count: 20),
                isInStock: true, priority: .high, price: -0.01, createdAt: Date(timeIntervalSince1970: -1e9)),
            Item(
                id: 0, title: "", notes: "", isInStock: false, priority: nil, price: 0,
                createdAt: Date(timeIntervalSinceReferenceDate: 0)),
            Item(
                id: Int64.max, title: String(repeating: "t", count: 500), notes: "🙂", isInStock: true,
                priority: .low, price: 1e300, createdAt: Date(timeIntervalSinceReferenceDate: 1.5e9 + 0.123)),
        ]
        // Descending ids: ordinary puts, not appends; the cursor still returns them in id order.
        try store.insert(edges.reversed())
        #expect(try allItems(in: store) == edges)
        for item in edges { #expect(try store.item(id: item.id) == item) }
        #expect(try store.page(ItemPageQuery(priority: nil, limit: 5, offset: 0)) == [edges[1]])
        try store.close()
    }

    @Test func aFailedBatchLeavesNothingBehind() throws {
        let directory = try TemporaryDirectory()
        let store = try LMDBItemStore(directory: directory.url)
        let first = generator.items(1...100)
        try store.insert(first)
        // Id 100 exists: the whole batch 99...150 (including the new ids after it) must be rolled back.
        #expect {
            try store.insert(generator.items(99...150))
        } throws: { error in
            (error as? LMDBError)?.code == MDB_KEYEXIST && "\(error)".contains("inserting item 99")
        }
        var badTitle = generator.item(id: 111)
        badTitle.title = "nul\u{0}inside"
        #expect {
            try store.insert(generator.items(101...110) + [badTitle])
        } throws: { error in
            "\(error)".contains("indexing item 111") && "\(error)".contains("0 byte")
        }
        #expect(try allItems(in: store) == first)
        #expect(
            try store.count(where: ItemFilter(priority: .low, isInStock: true))
                == first.filter {
                    $0.priority == .low && $0.isInStock
                }.count)
        try store.close()
    }

    @Test func aMalformedRecordIsAnErrorNamingIt() throws {
        let directory = try TemporaryDirectory()
        let store = try LMDBItemStore(directory: directory.url)
        try store.insert(generator.items(1...3))
        try store.close()
        // Overwrite item 2's value with bytes that claim a title longer than the value.
        let environment = try LMDBEnvironment(directory: directory.url, maxDatabases: 3, mapSize: 1 << 20)
        let items = try environment.openDatabase("item")
        try environment.write { transaction in
            try transaction.withCursor(on: items) { cursor in
                _ = try cursor.move(MDB_FIRST)
                let second = try #require(try cursor.move(MDB_NEXT))
                let key = Array(second.key)
                let garbage: [UInt8] = [1] + Array(repeating: 0, count: 16) + [200, 1, 65]
                try key.withUnsafeBytes { key in
                    try garbage.withUnsafeBytes { try transaction.put(in: items, key: key, value: $0) }
                }
            }
        }
        environment.close()
        let reopened = try LMDBItemStore(directory: directory.url)
        #expect(try reopened.item(id: 1) == generator.item(id: 1))
        #expect {
            _ = try reopened.item(id: 2)
        } throws: { error in
            let error = error as? LMDBError
            return error?.code == MDB_CORRUPTED && error?.operation == "decoding item 2"
                && error?.message.contains("title of 200 bytes") == true
        }
        try reopened.close()
    }

    /// A power cut during an environment's creation may leave data.mdb's name without both meta pages: LMDB
    /// refuses the file (MDB_INVALID).
    ///
    /// No more than two pages long and begun as LMDB begins one (a meta page's start), nothing was ever committed to
    /// it, and the store makes it again; a longer file it cannot read, or one that LMDB did not begin, stays an error,
    /// never silently replaced.
    @Test func anEnvironmentWhoseCreationWasCutIsMadeAgainAndNothingElseIs() throws {
        let directory = try TemporaryDirectory()
        let data = directory.url.appendingPathComponent("data.mdb")
        try tornMetaPage(4096 + 100).write(to: data)
        let store = try LMDBItemStore(directory: directory.url)
        try store.insert(generator.items(1...10))
        var count = 0
        try store.forEachItem { _ in count += 1 }
        #expect(count == 10)
        try store.close()
        let damaged = try TemporaryDirectory()
        try tornMetaPage(3 * 4096).write(to: damaged.url.appendingPathComponent("data.mdb"))
        #expect(throws: LMDBError.self) { _ = try LMDBItemStore(directory: damaged.url) }
        let foreign = try TemporaryDirectory()
        let notLMDB = Data(repeating: 0x5A, count: 4096 + 100)
        try notLMDB.write(to: foreign.url.appendingPathComponent("data.mdb"))
        #expect(throws: LMDBError.self) { _ = try LMDBItemStore(directory: foreign.url) }
        #expect(try Data(contentsOf: foreign.url.appendingPathComponent("data.mdb")) == notLMDB)
        // MDB_WRITEMAP sizes a new file to its whole map before writing the metas: a hole past them, as long as
        // the map, is still a creation cut short; one page of data in it is not.
        for (dataAt, madeAgain) in [(nil, true), (64 * 4096, false)] {
            let mapped = try TemporaryDirectory()
            let handle = try FileHandle(forWritingTo: createdFile(mapped.url.appendingPathComponent("data.mdb")))
            try handle.write(contentsOf: tornMetaPage(100))
            if let dataAt {
                try handle.seek(toOffset: UInt64(dataAt))
                try handle.write(contentsOf: Data(repeating: 0x5A, count: 4096))
            }
            try handle.truncate(atOffset: 1 << 20)
            try handle.close()
            let kind = try storeKind("lmdb+writemap")
            if madeAgain {
                let store = try #require(try kind.open(mapped.url) as? any ItemStore)
                try store.insert(generator.items(1...10))
                try store.close()
            } else {
                #expect(throws: LMDBError.self) { _ = try kind.open(mapped.url) }
            }
        }
    }

    /// `count` bytes of a meta page a creation began to write: its 16-byte page header, LMDB's magic number, then
    /// bytes that are no meta page's.
    private func tornMetaPage(_ count: Int) -> Data {
        Data(count: 16) + Data([0xDE, 0xC0, 0xEF, 0xBE]) + Data(repeating: 0x5A, count: count - 20)
    }

    private func createdFile(_ url: URL) throws -> URL {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown)
        }
        return url
    }

    @Test func aStoreInAnotherFormatIsRefused() throws {
        let directory = try TemporaryDirectory()
        try LMDBItemStore(directory: directory.url).close()
        let environment = try LMDBEnvironment(directory: directory.url, maxDatabases: 3, mapSize: 1 << 20)
        let meta = try environment.openDatabase("meta")
        try environment.write { transaction in
            try Array("itemFormat".utf8).withUnsafeBytes { key in
                try [UInt8(9)].withUnsafeBytes { try transaction.put(in: meta, key: key, value: $0) }
            }
        }
        environment.close()
        #expect {
            try LMDBItemStore(directory: directory.url)
        } throws: { error in
            "\(error)".contains("format [9]") && "\(error)".contains(directory.url.path)
        }
    }

    @Test func mdbStatOpensTheEnvironment() throws {
        let directory = try TemporaryDirectory()
        let store = try LMDBItemStore(directory: directory.url)
        try store.insert(generator.items(1...250))
        try store.close()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/mdb_stat")
        process.arguments = ["-a", directory.url.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        for database in ["item", "item_on_priority_isInStock_title", "meta"] {
            #expect(output.contains("Status of \(database)\n"), "\(database) missing from:\n\(output)")
        }
        // The item database holds one entry per item; the index one per item too (as duplicates of 8 keys).
        #expect(output.components(separatedBy: "Entries: 250\n").count - 1 == 2, "\(output)")
    }
}
