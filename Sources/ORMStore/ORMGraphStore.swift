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
protocol ObjectGraphStore: AssociationStore, HouseStore, ProfileStore {
    var context: ModelContext { get }
    /// The profile's stacks, loaded by the first profile write.
    var profileStacks: ProfileStacks? { get set }
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
        if savesEveryBatch { resetContext() }
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

    // MARK: Profile

    /// Inserts a sample object per sample, each pointing at its `CallStack` (fetched for the batch, or inserted
    /// when new).
    public func insert(samples: [PersistenceBench.Sample]) throws {
        let stacks = try loadedStacks()
        var missing: [Int64] = []
        let objects = samples.map { sample in
            let (id, isNew) = stacks.interner.id(of: sample.callStack)
            if isNew {
                let stack = CallStack(context: context)
                stack.id = id
                stack.leaf = Int64(bitPattern: sample.leafFrame)
                stack.frames = sample.callStack
                stacks.objects[id] = stack
            } else if stacks.objects[id] == nil {
                missing.append(id)
            }
            return id
        }
        // Stacks saved by an earlier batch whose objects a reset let go.
        if !missing.isEmpty {
            for stack in try context.fetch(FetchDescriptor<CallStack>(predicate: CallStack.id.isIn(missing))) {
                stacks.objects[stack.id] = stack
            }
        }
        for (sample, id) in zip(samples, objects) {
            let object = Sample(context: context)
            object.timestamp = sample.timestamp
            object.pid = Int64(sample.pid)
            object.tid = Int64(sample.tid)
            object.stack = stacks.objects[id]
        }
        try endBatch()
    }

    /// Fetches the window's samples (sorted, limited) and counts their stacks' leaves: one fault per distinct
    /// stack, or one prefetch query.
    public func topLeafFrames(from timestamp: Int64, samples count: Int, limit: Int) throws -> [FrameCount] {
        let samples = try context.fetch(
            FetchDescriptor<Sample>(
                predicate: Sample.timestamp >= timestamp, sortBy: [FetchSortDescriptor(Sample.timestamp)],
                fetchLimit: count, relationshipKeyPathsForPrefetching: prefetchesRelationships ? ["stack"] : []))
        var counts: [UInt64: Int] = [:]
        for sample in samples {
            guard let stack = sample.stack else { throw BenchError("orm: sample \(sample.timestamp) has no stack") }
            counts[UInt64(bitPattern: stack.leaf), default: 0] += 1
        }
        return FrameCount.top(limit, of: counts)
    }

    /// Pages of 100,000 samples, the context reset after each, so that reading a large profile back holds one
    /// page of objects.
    public func forEachSample(_ body: (PersistenceBench.Sample) throws -> Void) throws {
        var last = Int64.min
        while true {
            let page = try context.fetch(
                FetchDescriptor<Sample>(
                    predicate: Sample.timestamp > last, sortBy: [FetchSortDescriptor(Sample.timestamp)],
                    fetchLimit: 100_000, relationshipKeyPathsForPrefetching: ["stack"]))
            for sample in page {
                try body(
                    PersistenceBench.Sample(
                        timestamp: sample.timestamp, pid: Int32(sample.pid), tid: Int32(sample.tid),
                        callStack: sample.stack?.frames ?? []))
            }
            guard let final = page.last else { return }
            last = final.timestamp
            resetContext()
        }
    }

    private func loadedStacks() throws -> ProfileStacks {
        if let profileStacks { return profileStacks }
        let stacks = ProfileStacks()
        for stack in try context.fetch(FetchDescriptor<CallStack>()) {
            stacks.interner.register(stack.frames, id: stack.id)
        }
        profileStacks = stacks
        return stacks
    }

    private func endBatch() throws {
        guard savesEveryBatch else { return }
        try context.save()
        resetContext()
    }

    /// Resets the context and lets go of the stack objects it held.
    func resetContext() {
        context.reset()
        profileStacks?.objects = [:]
    }
}

/// `orm+prefetch`: the same ORM, its association and house reads naming the relationships to prefetch. It
/// answers only those workloads: for items it would be `orm` again.
public final class ORMPrefetchingStore: ObjectGraphStore {
    public static let kind = ORMItemStore.kind(
        "orm+prefetch",
        summary: "the same ORM; relationship reads prefetch (relationshipKeyPathsForPrefetching) instead of one "
            + "fault per object",
        type: ORMPrefetchingStore.self, open: { try ORMPrefetchingStore(directory: $0) })

    private let container: ModelContainer
    let context: ModelContext
    var savesEveryBatch: Bool { false }
    var prefetchesRelationships: Bool { true }
    var profileStacks: ProfileStacks?

    public init(directory: URL) throws {
        container = try ModelContainer(
            model: ORMItemStore.makeModel(), url: directory.appendingPathComponent("store.sqlite"))
        context = ModelContext(container)
    }

    public func close() throws {
        resetContext()
        try container.close()
    }

    public func finishInserting() throws {
        try context.save()
    }

    public func settle() throws {
        try container.checkpoint()
    }
}

/// The profile's distinct stacks: their ids, and the objects of those the context holds (unsaved ones cannot be
/// fetched, so the store keeps them until a save and reset).
final class ProfileStacks {
    let interner = StackInterner()
    var objects: [Int64: CallStack] = [:]
}
