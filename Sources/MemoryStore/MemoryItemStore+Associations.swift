import PersistenceBench

/// The league on the heap stores: sports and teams in arrays; the aggregate is one pass over the teams.
extension MemoryItemStore: AssociationStore {
    public func insert(sports: [Sport]) throws {
        guard sports.allSatisfy({ $0.id > (self.sports.last?.id ?? 0) }),
            zip(sports, sports.dropFirst()).allSatisfy({ $0.id < $1.id })
        else { throw BenchError("\(name): sports must come in ascending id order, after the stored ones") }
        self.sports += sports
        unsaved = true
    }

    /// One batch of a bulk load, in the heap only (as `insert(_:)`).
    public func insert(teams: [Team]) throws {
        guard teams.allSatisfy({ $0.id > (self.teams.last?.id ?? 0) }),
            zip(teams, teams.dropFirst()).allSatisfy({ $0.id < $1.id })
        else { throw BenchError("\(name): teams must come in ascending id order, after the stored ones") }
        self.teams += teams
        unsaved = true
    }

    public func teamCountsBySport() throws -> [TeamCount] {
        var counts: [Int64: Int] = [:]
        for team in teams { counts[team.sportID, default: 0] += 1 }
        return sports.map { TeamCount(sportID: $0.id, sportName: $0.name, teams: counts[$0.id] ?? 0) }
    }
}
