/// `teams-per-sport`: the number of teams of every sport, each store in its idiom.
///
/// The SQLite stores answer with one grouped LEFT JOIN; `orm` through the relationship (a to-many fault per
/// sport: N+1 queries), `orm+prefetch` with the teams prefetched in one query; `packed` reads every team row;
/// `lmdb` reads each sport's maintained duplicate count (labelled in reports). Operations: the answers given, one
/// per sport (N/50), since a store that keeps a count per sport never looks at the teams.
package struct TeamsPerSportWorkload: Workload {
    package init() {}
    package let name = "teams-per-sport"
    package let summary = "count the teams of every sport (N teams over N/50 sports, zipfian, some empty)"
    package var fixture: Fixture? { .league }
    package var report: WorkloadReport { WorkloadReport(countAsked: .teamsPerSport) }

    package var capability: StoreCapability { .associations }

    package func run(on store: any Store, context: WorkloadContext) throws -> WorkloadOutcome {
        let league = try requireCapability(store, (any AssociationStore).self, for: "workload \(name)")
        let counts = try context.stopwatch.measure { try league.teamCountsBySport() }
        return WorkloadOutcome(operations: counts.count, digest: Self.digest(counts))
    }

    /// The workload reads only; what it leaves is the answer it gave.
    package func digestAfterRun(of store: any Store) throws -> Digest {
        try Self.digest(
            requireCapability(store, (any AssociationStore).self, for: "workload \(name)").teamCountsBySport())
    }

    private static func digest(_ counts: [TeamCount]) -> Digest {
        var digest = Digest()
        for count in counts { digest.add(count) }
        return digest
    }
}
