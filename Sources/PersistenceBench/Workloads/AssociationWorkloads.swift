/// `teams-per-sport`: the number of teams of every sport, each store in its idiom.
///
/// The SQLite stores answer with one grouped LEFT JOIN; `orm` through the relationship (a to-many fault per
/// sport: N+1 queries), `orm+prefetch` with the teams prefetched in one query; `packed` reads every team row;
/// `lmdb` reads each sport's maintained duplicate count (labelled in reports). Operations: the answers given, one
/// per sport (N/50), since a store that keeps a count per sport never looks at the teams.
public struct TeamsPerSportWorkload: Workload {
    public init() {}
    public let name = "teams-per-sport"
    public let summary = "count the teams of every sport (N teams over N/50 sports, zipfian, some empty)"
    public var fixture: Fixture? { .league }
    public var countAsked: MaintainedCount? { .teamsPerSport }

    public func supports(_ storeType: any Store.Type) -> Bool { storeType is any AssociationStore.Type }

    public func run(on store: any Store, context: WorkloadContext) throws -> WorkloadOutcome {
        let league = try requireCapability(store, (any AssociationStore).self, for: "workload \(name)")
        let counts = try context.stopwatch.measure { try league.teamCountsBySport() }
        return WorkloadOutcome(operations: counts.count, digest: Self.digest(counts))
    }

    /// The workload reads only; what it leaves is the answer it gave.
    public func digestAfterRun(of store: any Store) throws -> Digest {
        try Self.digest(
            requireCapability(store, (any AssociationStore).self, for: "workload \(name)").teamCountsBySport())
    }

    private static func digest(_ counts: [TeamCount]) -> Digest {
        var digest = Digest()
        for count in counts { digest.add(count) }
        return digest
    }
}

extension Fixture {
    /// The league of the scale: its sports in one transaction, then teams 1...scale in transactions of
    /// `batchSize`.
    public static let league = Fixture(name: "league") { store, context in
        let league = try requireCapability(store, (any AssociationStore).self, for: "the league fixture")
        let generator = LeagueGenerator(seed: context.seed, teams: context.scale)
        try league.insert(sports: generator.sports)
        try forEachBatch(of: context.scale, context: context) { ids in
            try league.insert(teams: ids.map(generator.team(id:)))
            context.progress.advance(by: ids.count)
        }
        try league.finishInserting()
    }

    /// The houses of the scale (scale/10 houses, about `scale` rooms) in transactions of `batchSize / 10` houses
    /// (about `batchSize` rooms).
    public static let houses = Fixture(name: "houses") { store, context in
        let houses = try requireCapability(store, (any HouseStore).self, for: "the houses fixture")
        let generator = HouseGenerator(seed: context.seed, scale: context.scale)
        try forEachBatch(of: generator.houseCount, size: HouseWorkloads.batchSize(context), context: context) {
            ids in
            let batch = ids.map(generator.house(id:))
            try houses.insert(houses: batch)
            context.progress.advance(by: batch.reduce(0) { $0 + $1.roomCount })
        }
        try houses.finishInserting()
    }

    /// Calls `body` with ids 1...count, `size` (default `batchSize`) at a time.
    static func forEachBatch(
        of count: Int, size: Int? = nil, context: WorkloadContext, _ body: (ClosedRange<Int64>) throws -> Void
    ) throws {
        let size = Int64(size ?? context.batchSize)
        var start: Int64 = 1
        while start <= Int64(count) {
            let end = min(Int64(count), start + size - 1)
            try body(start...end)
            start = end + 1
        }
    }
}

/// `store` as the capability a workload needs, or an error naming who needed it.
func requireCapability<Capability>(_ store: any Store, _ capability: Capability.Type, for user: String) throws
    -> Capability
{
    guard let typed = store as? Capability else {
        throw BenchError("\(user) needs \(capability); \(type(of: store)) is not one")
    }
    return typed
}
