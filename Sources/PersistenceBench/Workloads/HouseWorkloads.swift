/// A workload over houses, floors and rooms: the store must be a `HouseStore`.
protocol HouseWorkload: Workload {
    func run(on store: any HouseStore, context: WorkloadContext) throws -> WorkloadOutcome
}

extension HouseWorkload {
    package var fixture: Fixture? { .houses }

    package var capability: StoreCapability { .houses }

    package func run(on store: any Store, context: WorkloadContext) throws -> WorkloadOutcome {
        try run(on: requireCapability(store, (any HouseStore).self, for: "workload \(name)"), context: context)
    }

    /// Every kind's row count, then every house in order: a delete that left orphan floors or rooms, lost a
    /// house's order or deleted the wrong house reads differently.
    package func digestAfterRun(of store: any Store) throws -> Digest {
        let houses = try requireCapability(store, (any HouseStore).self, for: "workload \(name)")
        let counts = try houses.houseCounts()
        var digest = Digest()
        digest.add(counts.houses)
        digest.add(counts.floors)
        digest.add(counts.rooms)
        try houses.forEachHouse { digest.add($0) }
        return digest
    }
}

/// Shared numbers of the house workloads.
enum HouseWorkloads {
    /// Houses per write transaction: a tenth of `batchSize`, so a transaction holds about `batchSize` rooms.
    static func batchSize(_ context: WorkloadContext) -> Int { max(1, context.batchSize / 10) }
}

extension House {
    var roomCount: Int { floors.reduce(0) { $0 + $1.rooms.count } }
}

/// `ordered-rooms`: every house's floors and rooms, in their stored order.
///
/// The digest is order-sensitive and the stored order is a shuffle of id order, so a store that keeps a to-many
/// as a set (as SwiftData's arrays do) and returns it in any other order fails the check. Operations: the rooms
/// read.
package struct OrderedRoomsWorkload: HouseWorkload {
    package init() {}
    package let name = "ordered-rooms"
    package let summary = "read every house's floors and rooms in their stored order (N/10 houses, ~N rooms)"

    package func run(on store: any HouseStore, context: WorkloadContext) throws -> WorkloadOutcome {
        var digest = Digest()
        var rooms = 0
        let progress = context.progress
        try context.stopwatch.measure {
            try store.forEachHouse { house in
                digest.add(house)
                let count = house.roomCount
                rooms += count
                progress.advance(by: count)
            }
        }
        return WorkloadOutcome(operations: rooms, digest: digest)
    }
}

/// `cascade-delete`: deletes a seeded 10% of houses with their floors and rooms.
///
/// Operations: the houses deleted (each with 1–4 floors and ~10 rooms). The digest after the run counts every
/// kind of row and reads every remaining house, so it proves no orphan floor or room remains.
package struct CascadeDeleteWorkload: HouseWorkload {
    package init() {}
    package let name = "cascade-delete"
    package let summary = "delete a seeded 10% of houses with their floors and rooms, batched"

    package func run(on store: any HouseStore, context: WorkloadContext) throws -> WorkloadOutcome {
        let houseCount = HouseGenerator(seed: context.seed, scale: context.scale).houseCount
        let total = max(1, houseCount / 10)
        let permutation = SeededPermutation(count: houseCount, seed: context.seed, stream: .houseSelection)
        let batchSize = HouseWorkloads.batchSize(context)
        var position = 0
        while position < total {
            let end = min(total, position + batchSize)
            let ids = (position..<end).map { Int64(permutation[$0] + 1) }
            try context.stopwatch.measure { try store.deleteHouses(ids: ids) }
            context.progress.advance(by: ids.count)
            position = end
        }
        return WorkloadOutcome(operations: total, digest: nil)
    }
}
