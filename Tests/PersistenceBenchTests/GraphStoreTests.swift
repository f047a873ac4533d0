import Foundation
import PersistenceBench
import Testing

func open<Capability>(_ name: String, as capability: Capability.Type, at directory: URL) throws -> Capability {
    guard let store = try storeKind(name).open(directory) as? Capability else {
        throw BenchError("\(name) is no \(capability)")
    }
    return store
}

/// The associations and ordered trees, every store that has them: answers checked against the generators.
@Suite struct GraphStoreTests {
    let league = LeagueGenerator(seed: 5, teams: 2_000)
    let houses = HouseGenerator(seed: 5, scale: 600)

    var expectedCounts: [TeamCount] {
        var counts = [Int64: Int]()
        for id in 1...Int64(league.teamCount) { counts[league.team(id: id).sportID, default: 0] += 1 }
        return league.sports.map { TeamCount(sportID: $0.id, sportName: $0.name, teams: counts[$0.id] ?? 0) }
    }

    func allHouses(in store: any HouseStore) throws -> [House] {
        var all: [House] = []
        try store.forEachHouse { all.append($0) }
        return all
    }

    @Test(arguments: associationStoreNames)
    func teamCountsIncludeEmptySportsAndSurviveReopening(store name: String) throws {
        let directory = try TemporaryDirectory()
        let store = try open(name, as: (any AssociationStore).self, at: directory.url)
        try store.insert(sports: league.sports)
        try store.insert(teams: (1...1_500).map(league.team(id:)))
        try store.insert(teams: (1_501...2_000).map(league.team(id:)))
        try store.finishInserting()
        let expected = expectedCounts
        #expect(try store.teamCountsBySport() == expected)
        try store.close()
        let reopened = try open(name, as: (any AssociationStore).self, at: directory.url)
        #expect(try reopened.teamCountsBySport() == expected)
        try reopened.close()
    }

    @Test(arguments: houseStoreNames)
    func housesKeepTheOrderOfTheirFloorsAndRooms(store name: String) throws {
        let directory = try TemporaryDirectory()
        let store = try open(name, as: (any HouseStore).self, at: directory.url)
        let expected = houses.houses(1...Int64(houses.houseCount))
        try store.insert(houses: Array(expected[..<20]))
        try store.insert(houses: Array(expected[20...]))
        try store.finishInserting()
        #expect(try allHouses(in: store) == expected)
        try store.close()
        let reopened = try open(name, as: (any HouseStore).self, at: directory.url)
        #expect(try allHouses(in: reopened) == expected)
        try reopened.close()
    }

    @Test(arguments: houseStoreNames)
    func deletingAHouseDeletesItsFloorsAndRoomsAndNothingElse(store name: String) throws {
        let directory = try TemporaryDirectory()
        let store = try open(name, as: (any HouseStore).self, at: directory.url)
        let all = houses.houses(1...Int64(houses.houseCount))
        try store.insert(houses: all)
        try store.finishInserting()
        let deleted: Set<Int64> = [1, 7, 33, 60, 12]
        try store.deleteHouses(ids: [33, 1, 60])
        try store.deleteHouses(ids: [7, 12])
        let remaining = all.filter { !deleted.contains($0.id) }
        #expect(try allHouses(in: store) == remaining)
        let counts = HouseCounts(
            houses: remaining.count, floors: remaining.reduce(0) { $0 + $1.floors.count },
            rooms: remaining.reduce(0) { $0 + $1.floors.reduce(0) { $0 + $1.rooms.count } })
        #expect(try store.houseCounts() == counts)
        try store.close()
        let reopened = try open(name, as: (any HouseStore).self, at: directory.url)
        #expect(try reopened.houseCounts() == counts)
        #expect(try allHouses(in: reopened) == remaining)
        try reopened.close()
    }
}

@Suite struct GraphGeneratorTests {
    @Test func leaguesAreSkewedAndEveryTenthSportHasNoTeam() {
        let league = LeagueGenerator(seed: 3, teams: 50_000)
        #expect(league.sportCount == 1_000)
        var counts = [Int64: Int]()
        for id in 1...Int64(league.teamCount) { counts[league.team(id: id).sportID, default: 0] += 1 }
        #expect(counts.keys.allSatisfy { $0 >= 1 && $0 <= 1_000 && $0 % 10 != 0 })
        let sorted = counts.values.sorted(by: >)
        #expect(sorted[0] > 50 * sorted[sorted.count / 2], "zipfian: the top sport dwarfs the median one")
        #expect(LeagueGenerator(seed: 3, teams: 50_000).team(id: 77) == league.team(id: 77))
        #expect(LeagueGenerator(seed: 4, teams: 50_000).team(id: 77) != league.team(id: 77))
    }

    @Test func housesHaveAboutTenRoomsInAStoredOrderThatIsNotIdOrder() {
        let generator = HouseGenerator(seed: 3, scale: 20_000)
        #expect(generator.houseCount == 2_000)
        let all = generator.houses(1...2_000)
        let rooms = all.reduce(0) { $0 + $1.floors.reduce(0) { $0 + $1.rooms.count } }
        #expect(rooms > 18_000 && rooms < 22_000)
        #expect(all.allSatisfy { (1...4).contains($0.floors.count) })
        let floors = all.flatMap(\.floors)
        #expect(floors.allSatisfy { (1...7).contains($0.rooms.count) })
        #expect(Set(floors.map(\.id)).count == floors.count)
        #expect(Set(floors.flatMap(\.rooms).map(\.id)).count == rooms)
        #expect(all.contains { $0.floors.map(\.id) != $0.floors.map(\.id).sorted() })
        #expect(floors.contains { $0.rooms.map(\.id) != $0.rooms.map(\.id).sorted() })
        #expect(HouseGenerator(seed: 3, scale: 20).house(id: 5) == generator.house(id: 5))
    }
}

/// `unique-title` in every store that migrates: the first item of each title stays, and the rule holds after.
@Suite struct UniqueTitleMigrationTests {
    @Test(arguments: migrationStoreNames)
    func duplicatesGoAndLaterDuplicatesAreRefused(store name: String) throws {
        let directory = try TemporaryDirectory()
        let generator = ItemGenerator(seed: 9)
        let items = generator.items(1...2_000)
        var seen = Set<String>()
        let kept = items.filter { seen.insert($0.title).inserted }
        #expect(items.count - kept.count > 40, "about 5% of 2,000 titles repeat")
        let store = try open(name, as: (any MigrationStore).self, at: directory.url)
        try load(items, into: store)
        #expect(try store.migrateToUniqueTitles() == items.count - kept.count)
        #expect(try allItems(in: store) == kept)
        try store.close()

        let reopened = try open(name, as: (any MigrationStore).self, at: directory.url)
        var copy = generator.item(id: 5_000)
        copy.title = kept[10].title
        #expect(throws: (any Error).self, "an insert repeating a title") {
            try reopened.insert([copy])
            try reopened.finishInserting()
        }
        let update = ItemUpdate(id: kept[3].id, title: kept[4].title, isInStock: true, price: 1)
        #expect(throws: (any Error).self, "an update repeating a title") { try reopened.update([update]) }
        try reopened.close()

        // What failed changed nothing; a new title is still welcome.
        let last = try open(name, as: (any MigrationStore).self, at: directory.url)
        #expect(try allItems(in: last) == kept)
        var fresh = generator.item(id: 5_001)
        fresh.title = "a title nobody has"
        try load([fresh], into: last)
        #expect(try last.item(id: 5_001) == fresh)
        try last.close()
    }
}

/// The time profile, every store that keeps one: samples read back exactly, windows answered as the generator's
/// own count says.
@Suite struct ProfileStoreTests {
    let generator = SampleGenerator(seed: 21)

    func expectedTop(_ samples: [Sample], from timestamp: Int64, count: Int) -> [FrameCount] {
        var counts: [UInt64: Int] = [:]
        for sample in samples.filter({ $0.timestamp >= timestamp }).prefix(count) {
            counts[sample.leafFrame, default: 0] += 1
        }
        return FrameCount.top(20, of: counts)
    }

    @Test(arguments: profileStoreNames)
    func samplesReadBackAndWindowsCountTheirLeaves(store name: String) throws {
        let directory = try TemporaryDirectory()
        let samples = generator.samples(0..<3_000)
        let store = try open(name, as: (any ProfileStore).self, at: directory.url)
        try store.insert(samples: Array(samples[..<1_200]))
        try store.insert(samples: Array(samples[1_200..<2_000]))
        try store.finishInserting()
        try store.close()
        // Reopened, the store must know the stacks it holds: new samples reuse them.
        let reopened = try open(name, as: (any ProfileStore).self, at: directory.url)
        try reopened.insert(samples: Array(samples[2_000...]))
        try reopened.finishInserting()
        var read: [Sample] = []
        try reopened.forEachSample { read.append($0) }
        #expect(read == samples)
        for (timestamp, count) in [
            (Int64(0), 500), (samples[700].timestamp - 1, 1_000), (samples[2_990].timestamp, 100),
        ] {
            #expect(
                try reopened.topLeafFrames(from: timestamp, samples: count, limit: 20)
                    == expectedTop(samples, from: timestamp, count: count), "from \(timestamp), \(count)")
        }
        try reopened.close()
    }
}

@Suite struct SampleGeneratorTests {
    @Test func stacksAreFiveToAHundredAndTwentyFramesMeanThirtyWithSkewedLeaves() {
        let generator = SampleGenerator(seed: 3)
        let depths = generator.stacks.map(\.count)
        #expect(depths.min()! >= 5 && depths.max()! <= 120)
        let mean = Double(depths.reduce(0, +)) / Double(depths.count)
        #expect(mean > 25 && mean < 35, "mean depth \(mean)")
        #expect(Set(generator.stacks).count > 4_000)
        let samples = generator.samples(0..<50_000)
        #expect(zip(samples, samples.dropFirst()).allSatisfy { $0.timestamp < $1.timestamp })
        var leaves: [UInt64: Int] = [:]
        for sample in samples { leaves[sample.leafFrame, default: 0] += 1 }
        let top = FrameCount.top(20, of: leaves)
        #expect(top[0].samples > 10 * top[19].samples, "skewed: \(top.map(\.samples))")
        #expect(Set(samples.map(\.callStack)).count > 1_000, "drawn from thousands of stacks")
        #expect(SampleGenerator(seed: 3).sample(index: 777) == generator.sample(index: 777))
    }
}
