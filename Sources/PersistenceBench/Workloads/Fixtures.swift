import Foundation

/// Data loaded into a store before a read or change workload.
///
/// Loading is never timed.
public struct Fixture: Sendable {
    /// Names the fixture's directory: one copy per store, fixture and scale.
    package let name: String
    package let load: @Sendable (any Store, WorkloadContext) throws -> Void

    package init(name: String, load: @escaping @Sendable (any Store, WorkloadContext) throws -> Void) {
        self.name = name
        self.load = load
    }

    /// Items 1...scale, inserted in transactions of `batchSize`.
    package static let items = Fixture(name: "items") { store, context in
        try ItemBatches.insert(
            ids: 1...Int64(context.scale),
            into: requireCapability(store, (any ItemStore).self, for: "the items fixture"),
            context: context)
    }

    /// The league of the scale: its sports in one transaction, then teams 1...scale in transactions of
    /// `batchSize`.
    package static let league = Fixture(name: "league") { store, context in
        let league = try requireCapability(store, (any AssociationStore).self, for: "the league fixture")
        let generator = LeagueGenerator(seed: context.seed, teams: context.scale)
        try league.insert(sports: generator.sports)
        try Batches.forEach(upTo: context.scale, size: context.batchSize) { ids in
            try league.insert(teams: ids.map(generator.team(id:)))
            context.progress.advance(by: ids.count)
        }
        try league.finishInserting()
    }

    /// The houses of the scale (scale/10 houses, about `scale` rooms) in transactions of `batchSize / 10` houses
    /// (about `batchSize` rooms).
    package static let houses = Fixture(name: "houses") { store, context in
        let houses = try requireCapability(store, (any HouseStore).self, for: "the houses fixture")
        let generator = HouseGenerator(seed: context.seed, scale: context.scale)
        try Batches.forEach(upTo: generator.houseCount, size: HouseWorkloads.batchSize(context)) { ids in
            let batch = ids.map(generator.house(id:))
            try houses.insert(houses: batch)
            context.progress.advance(by: batch.reduce(0) { $0 + $1.roomCount })
        }
        try houses.finishInserting()
    }

    /// Samples 0..<scale of the seed's profile, in transactions of `batchSize`.
    package static let samples = Fixture(name: "samples") { store, context in
        try ProfileBatches.ingest(
            into: requireCapability(store, (any ProfileStore).self, for: "the samples fixture"), context: context,
            timed: false)
    }
}
