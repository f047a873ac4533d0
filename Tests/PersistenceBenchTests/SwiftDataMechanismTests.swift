import Foundation
import Observation
import PersistenceBench
import Testing

@testable import ORMStore

/// Each of SwiftData's and Core Data's mechanisms that `orm+swiftdata` adds does its work, alone in its own
/// variant, and none of them is on in `orm`: what the store writes, calls and posts, read from outside.
@Suite struct SwiftDataMechanismTests {
    let items = ItemGenerator(seed: 5).items(1...20)

    /// The store variant with `name`, loaded with the 20 items in one save, then 3 updated and 2 deleted.
    func loadAndChange(_ name: String, in directory: TemporaryDirectory) throws -> URL {
        let url = try directory.subdirectory(name)
        let store = try openItemStore(storeKind(name), at: url)
        try load(items, into: store)
        try store.update(
            items.prefix(3).map { ItemUpdate(id: $0.id, title: $0.title + "!", isInStock: true, price: 1.5) })
        try store.delete(ids: [items[10].id, items[11].id])
        try store.close()
        return url.appendingPathComponent("store.sqlite")
    }

    @Test func historyRecordsATransactionPerSaveAndAChangePerObject() throws {
        let directory = try TemporaryDirectory()
        let file = try loadAndChange("orm+history", in: directory)
        #expect(try sqlite3(file, "SELECT count(*) FROM ATRANSACTION") == "3\n")
        #expect(
            try sqlite3(file, "SELECT ZCHANGETYPE, count(*) FROM ACHANGE GROUP BY ZCHANGETYPE")
                == "0|20\n1|3\n2|2\n")
        // An update names its changed columns (title, isInStock, price: attributes 1, 3, 5); a delete keeps the
        // deleted row's unique attribute.
        #expect(
            try sqlite3(file, "SELECT hex(ZCOLUMNS) FROM ACHANGE WHERE ZCHANGETYPE = 1 LIMIT 1") == "2A00000000000000\n"
        )
        #expect(
            try sqlite3(file, "SELECT ZTOMBSTONE0 FROM ACHANGE WHERE ZCHANGETYPE = 2 ORDER BY ZTOMBSTONE0")
                == "\(items[10].id)\n\(items[11].id)\n")
        let plain = try loadAndChange("orm", in: directory)
        #expect(try sqlite3(plain, "SELECT count(*) FROM sqlite_master WHERE name = 'ACHANGE'") == "0\n")
    }

    /// An inserted object whose unique `id` is stored already updates that row; without upsert the save fails on
    /// the unique constraint.
    @Test func upsertUpdatesTheRowWithTheSameUniqueAttribute() throws {
        let directory = try TemporaryDirectory()
        var again = items[4]
        again.title = "upserted"
        let upserting = try openItemStore(storeKind("orm+upsert"), at: try directory.subdirectory("upsert"))
        try load(items, into: upserting)
        try upserting.insertDurably(again)
        #expect(try upserting.item(id: again.id)?.title == "upserted")
        #expect(try allItems(in: upserting).count == items.count)
        // The row took a new version, so a later update of it through a fetched object passes its lock check.
        try upserting.update([ItemUpdate(id: again.id, title: "later", isInStock: false, price: 2)])
        #expect(try upserting.item(id: again.id)?.title == "later")
        try upserting.close()

        let plain = try openItemStore(storeKind("orm"), at: try directory.subdirectory("plain"))
        try load(items, into: plain)
        #expect(throws: (any Error).self) { try plain.insertDurably(again) }
        try plain.close()
    }

    /// With the registrar, reading an attribute inside `withObservationTracking` registers it, and setting it
    /// calls the change handler, as for a `@Model` object.
    @Test func theRegistrarSeesEveryAttributeGetAndSet() throws {
        let directory = try TemporaryDirectory()
        let model = try ManagedObjectModel([ORMStore.Model.Item.self])
        for (mechanisms, observed) in [(SwiftDataMechanisms.observation, true), ([], false)] {
            let container = try ModelContainer(
                model: model, url: try directory.subdirectory("\(observed)").appendingPathComponent("store.sqlite"),
                mechanisms: mechanisms)
            let context = ModelContext(container)
            let object = ORMStore.Model.Item(items[0], context: context)
            try context.save()
            let changes = Counter()
            withObservationTracking {
                _ = object.title
            } onChange: {
                changes.increment()
            }
            object.price = 3  // not read in the tracking closure
            #expect(changes.value == 0)
            object.title = "changed"
            #expect(changes.value == (observed ? 1 : 0))
            context.reset()
            try container.close()
        }
    }

    @Test func eachSavePostsTheChangedIdentifiers() throws {
        let directory = try TemporaryDirectory()
        let seen = Counter()
        let observer = NotificationCenter.default.addObserver(
            forName: ModelContext.didSave, object: nil, queue: nil
        ) { notification in
            let info = notification.userInfo ?? [:]
            seen.record(
                ["inserted", "updated", "deleted"].map { ((info[$0] as? [PersistentIdentifier]) ?? []).count })
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        _ = try loadAndChange("orm", in: directory)
        #expect(seen.value == 0)
        _ = try loadAndChange("orm+notification", in: directory)
        #expect(seen.records == [[20, 0, 0], [0, 3, 0], [0, 0, 2]])
    }

    /// After every save the log is checkpointed and truncated, and deleted rows' pages go back to the file system.
    @Test func maintenanceTruncatesTheLogAndVacuumsAfterEverySave() throws {
        let directory = try TemporaryDirectory()
        let url = try directory.subdirectory("maintenance")
        let store = try openItemStore(storeKind("orm+maintenance"), at: url)
        try load(ItemGenerator(seed: 5).items(1...2_000), into: store)
        try store.delete(ids: (1...1_500).map(Int64.init))
        let file = url.appendingPathComponent("store.sqlite")
        let log = (try FileManager.default.attributesOfItem(atPath: file.path + "-wal")[.size] as? Int) ?? -1
        #expect(log == 0)
        #expect(try sqlite3(file, "PRAGMA auto_vacuum") == "2\n")
        #expect(try sqlite3(file, "PRAGMA freelist_count") == "0\n")
        try store.close()
    }

    /// `orm+swiftdata` has every mechanism; each `orm+<mechanism>` exactly one, and is measured when named.
    @Test func theVariantsCarryTheirMechanisms() throws {
        let directory = try TemporaryDirectory()
        let all = try openItemStore(storeKind("orm+swiftdata"), at: try directory.subdirectory("all"))
        #expect((all as? ORMItemStore)?.container.mechanisms == .all)
        try all.close()
        for (mechanism, suffix, _) in SwiftDataMechanisms.each {
            let kind = try storeKind("orm+" + suffix)
            #expect(kind.inclusion == .whenNamed)
            let store = try openItemStore(kind, at: try directory.subdirectory(suffix))
            #expect((store as? ORMItemStore)?.container.mechanisms == mechanism)
            try store.close()
        }
        #expect(try storeKind("orm+swiftdata").inDefaultRun)
    }
}

/// A count (and what each call recorded) that a callback on any thread may add to.
private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    private var recorded: [[Int]] = []
    var value: Int { lock.withLock { count } }
    var records: [[Int]] { lock.withLock { recorded } }
    func increment() { lock.withLock { count += 1 } }
    func record(_ values: [Int]) {
        lock.withLock {
            count += 1
            recorded.append(values)
        }
    }
}
