import PersistenceBench

/// The league on the heap stores: sports and teams in arrays; the aggregate is one pass over the teams.
extension MemoryItemStore: AssociationStore {
    /// Part of the league's bulk load, in the heap only (as `insert(_:)`): `finishInserting` commits it.
    package func insert(sports: [Sport]) throws {
        try append(sports, to: &self.sports, id: \.id, what: "sports")
    }

    /// One batch of the league's bulk load, in the heap only.
    package func insert(teams: [Team]) throws {
        try append(teams, to: &self.teams, id: \.id, what: "teams")
    }

    /// Appends records that come in ascending id order, after the stored ones.
    private func append<Record>(_ new: [Record], to stored: inout [Record], id: KeyPath<Record, Int64>, what: String)
        throws
    {
        var previous: Int64 = stored.last.map { $0[keyPath: id] } ?? 0
        for record in new {
            guard record[keyPath: id] > previous else {
                throw BenchError("\(name): \(what) must come in ascending id order, after the stored ones")
            }
            previous = record[keyPath: id]
        }
        stored += new
        unsaved = true
    }

    package func teamCountsBySport() throws -> [TeamCount] {
        var counts: [Int64: Int] = [:]
        for team in teams { counts[team.sportID, default: 0] += 1 }
        return sports.map { TeamCount(sportID: $0.id, sportName: $0.name, teams: counts[$0.id] ?? 0) }
    }
}
