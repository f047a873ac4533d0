import Foundation
import PersistenceBench
import Testing

@testable import ORMStore

// The relationship tests use the store's own models: Model.Sport.teams (to-many, nullify), Model.House.floors and
// Model.Floor.rooms (ordered to-many, cascade).

@Suite struct ORMStoreTests {
    let items = ItemGenerator(seed: 11).items(1...300)

    func open(_ directory: TemporaryDirectory, _ types: [any PersistentModel.Type] = [ORMStore.Model.Item.self]) throws
        -> ModelContext
    {
        let model = try ManagedObjectModel(types)
        return ModelContext(try ModelContainer(model: model, url: directory.url.appendingPathComponent("store.sqlite")))
    }

    func saveItems(_ count: Int, in context: ModelContext) throws {
        for item in items.prefix(count) { _ = ORMStore.Model.Item(item, context: context) }
        try context.save()
    }

    @Test func theFileIsLaidOutAsCoreDataLaysItOut() throws {
        let directory = try TemporaryDirectory()
        let context = try open(
            directory,
            [
                ORMStore.Model.Item.self, ORMStore.Model.Sport.self, ORMStore.Model.Team.self,
                ORMStore.Model.House.self, ORMStore.Model.Floor.self,
                ORMStore.Model.Room.self,
            ])
        try saveItems(3, in: context)
        context.reset()
        try context.container.close()
        let file = directory.url.appendingPathComponent("store.sqlite")
        #expect(
            try sqlite3(file, "SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT")
                == "1|Floor|0|0\n2|House|0|0\n3|Item|0|3\n4|Room|0|0\n5|Sport|0|0\n6|Team|0|0\n")
        #expect(
            try sqlite3(file, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
                == "ZFLOOR\nZHOUSE\nZITEM\nZROOM\nZSPORT\nZTEAM\nZ_METADATA\nZ_MODELCACHE\nZ_PRIMARYKEY\n")
        #expect(
            try sqlite3(file, "SELECT name FROM pragma_table_info('ZFLOOR')")
                == "Z_PK\nZ_ENT\nZ_OPT\nZID\nZNAME\nZHOUSE\nZ_FOK_HOUSE\n")
        #expect(
            try sqlite3(file, "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name")
                == "ZFLOOR_ZHOUSE_INDEX\nZROOM_ZFLOOR_INDEX\nZTEAM_ZSPORT_INDEX\nZ_Item_byPriorityStockTitleID\n")
        #expect(
            try sqlite3(file, "SELECT Z_PK, Z_ENT, Z_OPT, ZID FROM ZITEM ORDER BY Z_PK")
                == "1|3|1|1\n2|3|1|2\n3|3|1|3\n")
        // Dates are seconds since 2001-01-01.
        let stored = try sqlite3(file, "SELECT ZCREATEDAT FROM ZITEM WHERE ZID = 1")
        #expect(
            abs(
                Double(stored.trimmingCharacters(in: .whitespacesAndNewlines))!
                    - items[0].createdAt.timeIntervalSinceReferenceDate) < 0.001)
        #expect(try sqlite3(file, "SELECT Z_VERSION, length(Z_UUID) FROM Z_METADATA") == "1|36\n")
    }

    /// A context on another connection whose read began before a save fetches the row as it was; the shared row
    /// cache keeps the saved version, so that the saving context's next save passes its optimistic-locking check.
    @Test func anOlderReadNeverTakesTheRowCacheBack() throws {
        let directory = try TemporaryDirectory()
        let writer = try open(directory)
        try saveItems(5, in: writer)
        writer.container.shareAcrossThreads()
        let reader = ModelContext(writer.container, reads: try writer.container.openReadConnection())
        let byID = FetchDescriptor<ORMStore.Model.Item>(predicate: ORMStore.Model.Item.id == 3)
        let object = try #require(try writer.fetch(byID).first)
        // The reader's transaction sees the store before the save below.
        try reader.reads?.connection.execute("BEGIN")
        #expect(try reader.fetchCount(FetchDescriptor<ORMStore.Model.Item>()) == 5)
        object.title = "first change"
        try writer.save()
        #expect(
            try reader.fetch(byID).first?.title == items[2].title, "the reader sees the row as its transaction does")
        object.title = "second change"
        try writer.save()
        try reader.reads?.connection.execute("COMMIT")
        #expect(try reader.fetch(byID).first?.title == "second change")
        reader.reset()
        try reader.reads?.close()
    }

    @Test func oneObjectPerRowAndFaultsFillFromTheRowCache() throws {
        let directory = try TemporaryDirectory()
        let context = try open(directory)
        try saveItems(50, in: context)
        #expect(context.registeredModelCount == 0, "saved objects nobody holds leave the identity map")
        let queries = context.container.queryCount
        let all = try context.fetch(
            FetchDescriptor<ORMStore.Model.Item>(sortBy: [FetchSortDescriptor(ORMStore.Model.Item.id)]))
        #expect(all.count == 50 && all.allSatisfy(\.isFault))
        #expect(context.container.rowCache.count == 50)
        #expect(all[9].title == items[9].title && !all[9].isFault)
        #expect(context.container.queryCount == queries + 1, "a fault fills from the row cache, without a query")
        let again = try context.fetch(FetchDescriptor<ORMStore.Model.Item>(predicate: ORMStore.Model.Item.id == 10))
        #expect(again.count == 1 && again[0] === all[9])
        #expect(all[9].persistentModelID == PersistentIdentifier(entityName: "Item", key: 10))
        #expect(context.registeredModelCount == 50)
    }

    @Test func objectsNobodyHoldsLeaveTheIdentityMapAndTheRowCache() throws {
        let directory = try TemporaryDirectory()
        let context = try open(directory)
        try saveItems(20, in: context)
        do {
            let all = try context.fetch(FetchDescriptor<ORMStore.Model.Item>())
            #expect(all.count == 20 && context.registeredModelCount == 20)
        }
        #expect(context.registeredModelCount == 0)
        #expect(context.container.rowCache.count == 0)
    }

    @Test func fetchesCompilePredicatesSortsLimitsAndOffsetsToSQL() throws {
        let directory = try TemporaryDirectory()
        let context = try open(directory)
        try saveItems(300, in: context)
        typealias Model = ORMStore.Model.Item
        func ids(_ descriptor: FetchDescriptor<Model>) throws -> [Int64] { try context.fetch(descriptor).map(\.id) }

        let expensive = items.filter { $0.price >= 500 && $0.isInStock }.map(\.id)
        #expect(
            try ids(
                FetchDescriptor(predicate: Model.price >= 500 && Model.isInStock == true, sortBy: [.init(Model.id)]))
                == expensive)
        #expect(
            try context.fetchCount(FetchDescriptor(predicate: Model.price >= 500 && Model.isInStock == true))
                == expensive.count)
        let withoutPriority = items.filter { $0.priority == nil }.map(\.id)
        #expect(
            try ids(FetchDescriptor(predicate: Model.priority == nil, sortBy: [.init(Model.id)])) == withoutPriority)
        #expect(
            try ids(FetchDescriptor(predicate: !(Model.priority == nil) || Model.id == 1, sortBy: [.init(Model.id)]))
                == items.filter { $0.priority != nil || $0.id == 1 }.map(\.id))
        let byTitleDescending = items.sorted { ($0.title, $0.id) > ($1.title, $1.id) }.map(\.id)
        #expect(
            try ids(
                FetchDescriptor(
                    sortBy: [.init(Model.title, ascending: false), .init(Model.id, ascending: false)], fetchLimit: 7,
                    fetchOffset: 20))
                == Array(byTitleDescending[20..<27]))
        #expect(try Set(ids(FetchDescriptor(predicate: Model.id.isIn([5, 77, 300, 301])))) == [5, 77, 300])
        #expect(
            try ids(
                FetchDescriptor(
                    predicate: Model.title.isIn([items[3].title, "no \"such\" \\ title\n"]), sortBy: [.init(Model.id)]))
                == items.filter { $0.title == items[3].title }.map(\.id))
    }

    @Test func saveWritesOnlyChangedObjectsAndBumpsTheirVersion() throws {
        let directory = try TemporaryDirectory()
        let context = try open(directory)
        try saveItems(10, in: context)
        let all = try context.fetch(
            FetchDescriptor<ORMStore.Model.Item>(sortBy: [FetchSortDescriptor(ORMStore.Model.Item.id)]))
        all[2].title = "changed"
        all[2].title = "changed twice"
        all[4].price = 1.25
        #expect(context.changedModels.count == 2 && context.hasChanges)
        try context.save()
        #expect(!context.hasChanges && !all[2].isUpdated)
        let file = directory.url.appendingPathComponent("store.sqlite")
        #expect(try sqlite3(file, "SELECT ZID, Z_OPT FROM ZITEM WHERE Z_OPT > 1 ORDER BY ZID") == "3|2\n5|2\n")
        #expect(try sqlite3(file, "SELECT ZTITLE FROM ZITEM WHERE ZID = 3") == "changed twice\n")
        #expect(all[2].snapshot?.version == 2)
    }

    @Test func aRowChangedByAnotherContextFailsTheOptimisticLockCheck() throws {
        let directory = try TemporaryDirectory()
        let first = try open(directory)
        try saveItems(5, in: first)
        let second = try open(directory)
        let mine = try #require(
            try first.fetch(FetchDescriptor<ORMStore.Model.Item>(predicate: ORMStore.Model.Item.id == 2)).first)
        let theirs = try #require(
            try second.fetch(FetchDescriptor<ORMStore.Model.Item>(predicate: ORMStore.Model.Item.id == 2)).first)
        mine.title = "mine"
        try first.save()
        theirs.price = 9.99
        #expect(throws: ORMError.optimisticLockingFailure("Item 2")) { try second.save() }
        #expect(second.hasChanges, "a failed save keeps its changes")
        second.reset()
        let reread = try #require(
            try second.fetch(FetchDescriptor<ORMStore.Model.Item>(predicate: ORMStore.Model.Item.id == 2)).first)
        #expect(reread.title == "mine" && reread.price == items[1].price)
    }

    @Test func aMissingRequiredAttributeFailsValidationAndWritesNothing() throws {
        let directory = try TemporaryDirectory()
        let context = try open(directory)
        try saveItems(2, in: context)
        let incomplete = ORMStore.Model.Item(context: context)
        incomplete.id = 99
        #expect(throws: ORMError.validation("Item (temporary 3)", "title")) { try context.save() }
        #expect(incomplete.persistentModelID.isTemporary)
        #expect(try context.fetchCount(FetchDescriptor<ORMStore.Model.Item>()) == 2)
        context.delete(incomplete)
        try context.save()
        #expect(
            try sqlite3(directory.url.appendingPathComponent("store.sqlite"), "SELECT Z_MAX FROM Z_PRIMARYKEY") == "2\n"
        )
    }

    @Test func relationshipsKeepInversesAndFireOneQueryEachUnlessPrefetched() throws {
        let directory = try TemporaryDirectory()
        let context = try open(directory, [ORMStore.Model.Sport.self, ORMStore.Model.Team.self])
        let sports = (0..<3).map { number in
            let sport = ORMStore.Model.Sport(context: context)
            sport.name = "sport \(number)"
            sport.id = Int64(number)
            return sport
        }
        for number in 0..<12 {
            let team = ORMStore.Model.Team(context: context)
            team.name = "team \(number)"
            team.id = Int64(number)
            team.sport = sports[number % 3]
        }
        #expect(sports[1].teams.map(\.name) == ["team 1", "team 4", "team 7", "team 10"])
        try context.save()
        let moved = sports[1].teams[0]
        moved.sport = sports[2]
        #expect(sports[1].teams.count == 3 && sports[2].teams.count == 5 && sports[2].teams.last === moved)
        try context.save()
        context.reset()

        let fetched = try context.fetch(
            FetchDescriptor<ORMStore.Model.Sport>(sortBy: [FetchSortDescriptor(ORMStore.Model.Sport.name)]))
        var queries = context.container.queryCount
        #expect(fetched.map(\.teams.count) == [4, 3, 5])
        #expect(context.container.queryCount == queries + 3, "one relationship fault, one query")
        #expect(fetched[2].teams.allSatisfy { $0.sport === fetched[2] })
        context.reset()

        let prefetched = try context.fetch(
            FetchDescriptor<ORMStore.Model.Sport>(
                sortBy: [FetchSortDescriptor(ORMStore.Model.Sport.name)], relationshipKeyPathsForPrefetching: ["teams"])
        )
        queries = context.container.queryCount
        #expect(prefetched.map(\.teams.count) == [4, 3, 5])
        #expect(prefetched[1].teams.map(\.name) == ["team 4", "team 7", "team 10"])
        #expect(context.container.queryCount == queries)
        #expect(throws: ORMError.model("Sport has no relationship players to prefetch")) {
            try context.fetch(FetchDescriptor<ORMStore.Model.Sport>(relationshipKeyPathsForPrefetching: ["players"]))
        }
    }

    @Test func deletingNullifiesOrCascadesAtSave() throws {
        let directory = try TemporaryDirectory()
        let context = try open(
            directory,
            [
                ORMStore.Model.Sport.self, ORMStore.Model.Team.self, ORMStore.Model.House.self,
                ORMStore.Model.Floor.self, ORMStore.Model.Room.self,
            ])
        let sport = ORMStore.Model.Sport(context: context)
        sport.name = "curling"
        sport.id = 1
        for number in 0..<3 {
            let team = ORMStore.Model.Team(context: context)
            team.name = "team \(number)"
            team.id = Int64(number)
            sport.append(team, to: ORMStore.Model.Sport.teams)
        }
        for number in 0..<4 {
            let house = ORMStore.Model.House(context: context)
            house.address = "house \(number)"
            house.id = Int64(number)
            for level in 0..<3 {
                let floor = ORMStore.Model.Floor(context: context)
                floor.name = "\(level)"
                floor.id = Int64(number * 3 + level)
                house.append(floor, to: ORMStore.Model.House.floors)
                for room in 0..<2 {
                    let made = ORMStore.Model.Room(context: context)
                    made.name = "room \(room)"
                    made.id = Int64((number * 3 + level) * 2 + room)
                    made.area = 100
                    floor.append(made, to: ORMStore.Model.Floor.rooms)
                }
            }
        }
        try context.save()
        context.reset()

        let teams = try context.fetch(
            FetchDescriptor<ORMStore.Model.Team>(sortBy: [FetchSortDescriptor(ORMStore.Model.Team.name)]))
        context.delete(teams[0])
        try context.save()
        let curling = try #require(try context.fetch(FetchDescriptor<ORMStore.Model.Sport>()).first)
        #expect(curling.teams.map(\.name) == ["team 1", "team 2"])
        context.delete(curling)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<ORMStore.Model.Team>()) == 2)
        let file = directory.url.appendingPathComponent("store.sqlite")
        #expect(try sqlite3(file, "SELECT count(*) FROM ZTEAM WHERE ZSPORT IS NULL") == "2\n")

        let houses = try context.fetch(
            FetchDescriptor<ORMStore.Model.House>(sortBy: [FetchSortDescriptor(ORMStore.Model.House.address)]))
        context.delete(houses[1])
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<ORMStore.Model.House>()) == 3)
        #expect(try context.fetchCount(FetchDescriptor<ORMStore.Model.Floor>()) == 9)
        #expect(try context.fetchCount(FetchDescriptor<ORMStore.Model.Room>()) == 18)
        #expect(try sqlite3(file, "SELECT count(*) FROM ZROOM WHERE ZFLOOR NOT IN (SELECT Z_PK FROM ZFLOOR)") == "0\n")
    }

    @Test func orderedRelationshipsKeepTheirOrderThroughZFOK() throws {
        let directory = try TemporaryDirectory()
        let context = try open(
            directory, [ORMStore.Model.House.self, ORMStore.Model.Floor.self, ORMStore.Model.Room.self])
        let house = ORMStore.Model.House(context: context)
        house.address = "tower"
        house.id = 1
        for level in [5, 1, 3, 2] {
            let floor = ORMStore.Model.Floor(context: context)
            floor.name = "\(level)"
            floor.id = Int64(level)
            house.append(floor, to: ORMStore.Model.House.floors)
        }
        try context.save()
        context.reset()
        let tower = try #require(try context.fetch(FetchDescriptor<ORMStore.Model.House>()).first)
        #expect(tower.floors.map(\.name) == ["5", "1", "3", "2"])
        let first = tower.floors[0]
        tower.remove(first, from: ORMStore.Model.House.floors)
        tower.append(first, to: ORMStore.Model.House.floors)
        #expect(tower.floors.map(\.name) == ["1", "3", "2", "5"])
        try context.save()
        context.reset()
        #expect(
            try context.fetch(FetchDescriptor<ORMStore.Model.House>()).first?.floors.map(\.name) == [
                "1", "3", "2", "5",
            ])
        #expect(
            try sqlite3(
                directory.url.appendingPathComponent("store.sqlite"),
                "SELECT ZNAME, Z_FOK_HOUSE FROM ZFLOOR ORDER BY Z_FOK_HOUSE")
                == "1|1\n3|2\n2|3\n5|4\n")
    }

    @Test func autosaveSavesAfterItsIntervalAndOnlyWhenOn() throws {
        let directory = try TemporaryDirectory()
        let context = try open(directory)
        let reader = try open(directory)
        try saveItems(1, in: context)
        let item = try #require(try context.fetch(FetchDescriptor<ORMStore.Model.Item>()).first)
        item.title = "autosaved"
        Thread.sleep(forTimeInterval: 0.06)
        context.processPendingChanges()
        #expect(context.hasChanges, "autosave is off by default")
        context.autosaveInterval = .milliseconds(50)
        context.processPendingChanges()
        #expect(!context.hasChanges && context.autosaveError == nil)
        #expect(try reader.fetch(FetchDescriptor<ORMStore.Model.Item>()).first?.title == "autosaved")
        // A long interval, so that a stalled machine cannot make this part flaky.
        context.autosaveInterval = .seconds(60)
        item.title = "too soon"
        context.processPendingChanges()
        #expect(context.hasChanges, "the interval counts from the last save")
    }

    @Test func aStoreWrittenWithAnotherModelIsRefused() throws {
        let directory = try TemporaryDirectory()
        let context = try open(directory)
        try saveItems(1, in: context)
        context.reset()
        try context.container.close()
        #expect(throws: ORMError.self) {
            try open(directory, [ORMStore.Model.Item.self, ORMStore.Model.Sport.self, ORMStore.Model.Team.self])
        }
        do {
            _ = try open(directory, [ORMStore.Model.Item.self, ORMStore.Model.Sport.self, ORMStore.Model.Team.self])
        } catch {
            #expect("\(error)".contains("entities Sport, Team differ from the model; it needs a migration"))
        }
    }

    @Test func aModelWhoseInverseIsMissingIsRefused() throws {
        #expect(throws: ORMError.model("Team.sport: no relationship Sport.teams")) {
            try ManagedObjectModel([ORMStore.Model.Team.self])
        }
    }

    @Test(arguments: ["orm", "orm+batched"])
    func unsavedObjectsAreLostWhenTheStoreCloses(store name: String) throws {
        let directory = try TemporaryDirectory()
        let kind = try storeKind(name)
        let store = try openItemStore(kind, at: directory.url)
        try load(Array(items.prefix(10)), into: store)
        try store.insert(Array(items[10..<15]))
        try store.close()
        let reopened = try openItemStore(kind, at: directory.url)
        let expected = name == "orm" ? 10 : 15
        #expect(try allItems(in: reopened).count == expected)
        try reopened.close()
    }
}

@Suite struct ORMGraphStoreTests {
    /// `orm` counts teams through one relationship fault per sport; `orm+prefetch` with one query for all teams.
    @Test func teamCountsFaultPerSportUnlessPrefetched() throws {
        let league = LeagueGenerator(seed: 2, teams: 1_000)
        var queries: [Int] = []
        for prefetching in [false, true] {
            let directory = try TemporaryDirectory()
            let load: any ObjectGraphStore =
                prefetching
                ? try ORMPrefetchingStore(directory: directory.url)
                : try ORMItemStore(directory: directory.url, savesEveryBatch: false)
            try load.insert(sports: league.sports)
            try load.insert(teams: (1...1_000).map(league.team(id:)))
            try load.finishInserting()
            try load.close()
            let store: any ObjectGraphStore =
                prefetching
                ? try ORMPrefetchingStore(directory: directory.url)
                : try ORMItemStore(directory: directory.url, savesEveryBatch: false)
            let before = store.context.container.queryCount
            #expect(try store.teamCountsBySport().map(\.teams).reduce(0, +) == 1_000)
            queries.append(store.context.container.queryCount - before)
            try store.close()
        }
        #expect(queries == [1 + league.sportCount, 2])
    }

    /// A window faults each distinct stack once in `orm`; `orm+prefetch` reads them all with one more query.
    @Test func profileWindowsFaultEachStackOnceUnlessPrefetched() throws {
        let samples = SampleGenerator(seed: 4).samples(0..<2_000)
        let distinct = Set(samples.map(\.callStack)).count
        var queries: [Int] = []
        for prefetching in [false, true] {
            let directory = try TemporaryDirectory()
            let store: any ObjectGraphStore =
                prefetching
                ? try ORMPrefetchingStore(directory: directory.url)
                : try ORMItemStore(directory: directory.url, savesEveryBatch: false)
            try store.insert(samples: samples)
            try store.finishInserting()
            store.resetContext()
            let before = store.context.container.queryCount
            #expect(try store.topLeafFrames(from: 0, samples: 2_000, limit: 20).count == 20)
            queries.append(store.context.container.queryCount - before)
            try store.close()
        }
        #expect(queries == [1 + distinct, 2])
    }
}
