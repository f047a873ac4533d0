import Foundation
import PersistenceBench
import SQLiteSupport

/// The association and house workloads done the object-graph way, shared by `orm` (and `orm+batched`) and
/// `orm+prefetch`.
///
/// Reads go through the relationships, as a SwiftData user's code does: `sport.teams.count` fires one to-many
/// fault per sport (N+1 queries), `house.floors` and `floor.rooms` one per house and per floor, in the order the
/// `Z_FOK_` columns keep. With `prefetchesRelationships` the fetches name the relationships to prefetch
/// (`relationshipKeyPathsForPrefetching`), one query per relationship instead. Deletes fetch the houses, delete
/// them and save: the cascade rule deletes floors and rooms at save, firing their faults.
protocol ObjectGraphStore: AssociationStore, HouseStore {
    var context: ModelContext { get }
    /// Saves and resets the context after every batch of a bulk load (`orm+batched`), else once at the end.
    var savesEveryBatch: Bool { get }
    var prefetchesRelationships: Bool { get }
}

extension ObjectGraphStore {
    /// Inserts and saves the sports: the teams that follow fetch them as saved objects.
    public func insert(sports: [PersistenceBench.Sport]) throws {
        for sport in sports {
            let object = Sport(context: context)
            object.id = sport.id
            object.name = sport.name
        }
        try context.save()
        if savesEveryBatch { context.reset() }
    }

    /// Fetches the batch's sports and inserts its teams into them.
    public func insert(teams: [PersistenceBench.Team]) throws {
        let sportIDs = Array(Set(teams.map(\.sportID)))
        let sports = Dictionary(
            try context.fetch(FetchDescriptor<Sport>(predicate: Sport.id.isIn(sportIDs))).map { ($0.id, $0) },
            uniquingKeysWith: { first, _ in first })
        for team in teams {
            guard let sport = sports[team.sportID] else {
                throw BenchError("orm: team \(team.id) names sport \(team.sportID), which is not stored")
            }
            let object = Team(context: context)
            object.id = team.id
            object.name = team.name
            object.sport = sport
        }
        try endBatch()
    }

    public func teamCountsBySport() throws -> [TeamCount] {
        let sports = try context.fetch(
            FetchDescriptor<Sport>(
                sortBy: [FetchSortDescriptor(Sport.id)],
                relationshipKeyPathsForPrefetching: prefetchesRelationships ? ["teams"] : []))
        return sports.map { TeamCount(sportID: $0.id, sportName: $0.name, teams: $0.teams.count) }
    }

    public func insert(houses: [PersistenceBench.House]) throws {
        for house in houses {
            let houseObject = House(context: context)
            houseObject.id = house.id
            houseObject.address = house.address
            for floor in house.floors {
                let floorObject = Floor(context: context)
                floorObject.id = floor.id
                floorObject.name = floor.name
                houseObject.append(floorObject, to: House.floors)
                for room in floor.rooms {
                    let roomObject = Room(context: context)
                    roomObject.id = room.id
                    roomObject.name = room.name
                    roomObject.area = room.area
                    floorObject.append(roomObject, to: Floor.rooms)
                }
            }
        }
        try endBatch()
    }

    /// Fetches every house (all in memory, as a SwiftData fetch returns them) and walks its relationships.
    /// Prefetching fetches every floor with its rooms first, then the houses with their floors: three queries.
    public func forEachHouse(_ body: (PersistenceBench.House) throws -> Void) throws {
        // Held until the walk ends: the context registers objects weakly.
        let floors =
            prefetchesRelationships
            ? try context.fetch(FetchDescriptor<Floor>(relationshipKeyPathsForPrefetching: ["rooms"])) : []
        let houses = try context.fetch(
            FetchDescriptor<House>(
                sortBy: [FetchSortDescriptor(House.id)],
                relationshipKeyPathsForPrefetching: prefetchesRelationships ? ["floors"] : []))
        for house in houses {
            try body(
                PersistenceBench.House(
                    id: house.id, address: house.address,
                    floors: house.floors.map { floor in
                        PersistenceBench.Floor(
                            id: floor.id, name: floor.name,
                            rooms: floor.rooms.map { PersistenceBench.Room(id: $0.id, name: $0.name, area: $0.area) })
                    }))
        }
        withExtendedLifetime(floors) {}
    }

    public func deleteHouses(ids: [Int64]) throws {
        let houses = try context.fetch(
            FetchDescriptor<House>(
                predicate: House.id.isIn(ids),
                relationshipKeyPathsForPrefetching: prefetchesRelationships ? ["floors"] : []))
        guard houses.count == Set(ids).count else {
            throw BenchError("orm: \(Set(ids).count - houses.count) of \(ids.count) houses to delete are not stored")
        }
        for house in houses { context.delete(house) }
        try context.save()
    }

    public func houseCounts() throws -> HouseCounts {
        try HouseCounts(
            houses: context.fetchCount(FetchDescriptor<House>()), floors: context.fetchCount(FetchDescriptor<Floor>()),
            rooms: context.fetchCount(FetchDescriptor<Room>()))
    }

    private func endBatch() throws {
        guard savesEveryBatch else { return }
        try context.save()
        context.reset()
    }
}

/// `orm+prefetch`: the same ORM, its association and house reads naming the relationships to prefetch. It
/// answers only those workloads: for items it would be `orm` again.
public final class ORMPrefetchingStore: ObjectGraphStore {
    public static let kind = StoreKind(
        name: "orm+prefetch",
        summary: "the same ORM; relationship reads prefetch (relationshipKeyPathsForPrefetching) instead of one "
            + "fault per object",
        durability: "every save fsynced (WAL, synchronous=FULL)", engine: { SQLiteConnection.engine },
        type: ORMPrefetchingStore.self, open: { try ORMPrefetchingStore(directory: $0) })

    private let container: ModelContainer
    let context: ModelContext
    var savesEveryBatch: Bool { false }
    var prefetchesRelationships: Bool { true }

    public init(directory: URL) throws {
        container = try ModelContainer(
            model: ORMItemStore.makeModel(), url: directory.appendingPathComponent("store.sqlite"))
        context = ModelContext(container)
    }

    public func close() throws {
        context.reset()
        try container.close()
    }

    public func finishInserting() throws {
        try context.save()
    }
}
