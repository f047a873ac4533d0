import Foundation
import PersistenceBench
import Testing

/// The engine floors (`EngineFloorStore`): through the C API alone, the same records, keys and index entries the
/// store writes itself, so that the store reads them back and answers every question as after its own `insert`.
struct EngineFloorTests {
    @Test func everyStoreOverAnEngineWithACAPIHasAFloor() {
        #expect(Set(engineFloorStoreNames).isSuperset(of: ["sqlite", "lmdb"]), "\(engineFloorStoreNames)")
    }

    @Test(arguments: engineFloorStoreNames)
    func theFloorWritesWhatTheStoreWritesAndReadsItBack(store name: String) throws {
        let items = ItemGenerator(seed: 42).items(1...2_500)
        let floorDirectory = try TemporaryDirectory()
        let floor = try #require(try storeKind(name).open(floorDirectory.url) as? any EngineFloorStore)
        for start in stride(from: 0, to: items.count, by: 1_000) {
            try floor.engineInsert(floor.engineRecords(Array(items[start..<min(items.count, start + 1_000)])))
        }
        let ownDirectory = try TemporaryDirectory()
        let own = try #require(try storeKind(name).open(ownDirectory.url) as? any ItemStore)
        try own.insert(items)
        try own.finishInserting()

        var read: [Item] = []
        try floor.forEachItem { read.append($0) }
        #expect(read == items)
        for filter in ItemFilter.all {
            #expect(try floor.count(where: filter) == own.count(where: filter), "\(name) \(filter)")
        }
        for query in PageWorkloadQueries.sample {
            #expect(try floor.page(query) == own.page(query), "\(name) \(query)")
        }
        for id: Int64 in [1, 1_234, 2_500] { #expect(try floor.engineLookUp(id) == id) }
        #expect(try floor.engineLookUp(2_501) == nil)
        try floor.close()
        try own.close()
    }
}

/// A few pages of every priority, shallow and deep.
enum PageWorkloadQueries {
    static let sample: [ItemPageQuery] = [nil, Item.Priority.low, .medium, .high].flatMap { priority in
        [0, 40, 400].map { ItemPageQuery(priority: priority, limit: 20, offset: $0) }
    }
}
