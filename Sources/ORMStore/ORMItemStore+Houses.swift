import Foundation
import PersistenceBench
import SQLiteSupport

/// The house workloads done the object-graph way: ordered to-manys, cascading deletes at save.
extension ObjectGraphStore {
    package func insert(houses: [House]) throws {
        for house in houses {
            let houseObject = Model.House(context: context)
            houseObject.id = house.id
            houseObject.address = house.address
            for floor in house.floors {
                let floorObject = Model.Floor(context: context)
                floorObject.id = floor.id
                floorObject.name = floor.name
                houseObject.append(floorObject, to: Model.House.floors)
                for room in floor.rooms {
                    let roomObject = Model.Room(context: context)
                    roomObject.id = room.id
                    roomObject.name = room.name
                    roomObject.area = room.area
                    floorObject.append(roomObject, to: Model.Floor.rooms)
                }
            }
        }
        try endBatch()
    }

    /// Fetches every house (all in memory, as a SwiftData fetch returns them) and walks its relationships.
    ///
    /// Prefetching fetches every floor with its rooms first, then the houses with their floors: three queries.
    package func forEachHouse(_ body: (House) throws -> Void) throws {
        // Held until the walk ends: the context registers objects weakly.
        let floors =
            prefetchesRelationships
            ? try context.fetch(FetchDescriptor<Model.Floor>(relationshipKeyPathsForPrefetching: ["rooms"])) : []
        let houses = try context.fetch(
            FetchDescriptor<Model.House>(
                sortBy: [FetchSortDescriptor(Model.House.id)],
                relationshipKeyPathsForPrefetching: prefetchesRelationships ? ["floors"] : []))
        for house in houses {
            try body(
                House(
                    id: house.id, address: house.address,
                    floors: house.floors.map { floor in
                        Floor(
                            id: floor.id, name: floor.name,
                            rooms: floor.rooms.map { Room(id: $0.id, name: $0.name, area: $0.area) })
                    }))
        }
        withExtendedLifetime(floors) {}
    }

    package func deleteHouses(ids: [Int64]) throws {
        let houses = try context.fetch(
            FetchDescriptor<Model.House>(
                predicate: Model.House.id.isIn(ids),
                relationshipKeyPathsForPrefetching: prefetchesRelationships ? ["floors"] : []))
        guard houses.count == Set(ids).count else {
            throw ORMError.objectNotFound("\(Set(ids).count - houses.count) of the \(ids.count) houses to delete")
        }
        for house in houses { context.delete(house) }
        try context.save()
    }

    package func houseCounts() throws -> HouseCounts {
        try HouseCounts(
            houses: context.fetchCount(FetchDescriptor<Model.House>()),
            floors: context.fetchCount(FetchDescriptor<Model.Floor>()),
            rooms: context.fetchCount(FetchDescriptor<Model.Room>()))
    }
}
