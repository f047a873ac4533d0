/// A sport, the "one" side of the `Sport` 1—n `Team` association.
public struct Sport: Equatable, Hashable, Sendable, Codable {
    /// 1...S for a league of S sports.
    public var id: Int64
    public var name: String

    public init(id: Int64, name: String) {
        self.id = id
        self.name = name
    }
}

/// A team: the "many" side, pointing at its sport.
public struct Team: Equatable, Hashable, Sendable, Codable {
    /// 1...N for a league of N teams.
    public var id: Int64
    public var sportID: Int64
    public var name: String

    public init(id: Int64, sportID: Int64, name: String) {
        self.id = id
        self.sportID = sportID
        self.name = name
    }
}

/// One line of `teams-per-sport`'s answer: a sport and how many teams it has (0 for a sport without teams).
public struct TeamCount: Equatable, Hashable, Sendable {
    public var sportID: Int64
    public var sportName: String
    public var teams: Int

    public init(sportID: Int64, sportName: String, teams: Int) {
        self.sportID = sportID
        self.sportName = sportName
        self.teams = teams
    }
}

/// Generates the league of a seed and scale: N teams spread with zipfian skew over `sportCount(teams:)` sports,
/// of which every tenth (ids 10, 20, …) has no team, so that an aggregate that drops empty groups (an inner
/// join) answers differently from one that keeps them.
public struct LeagueGenerator: Sendable {
    public let seed: UInt64
    /// Teams in the league: the scale.
    public let teamCount: Int
    /// Sports in the league: one per 50 teams, at least 10.
    public let sportCount: Int
    private let popularity: ZipfianGenerator

    public init(seed: UInt64, teams: Int) {
        precondition(teams >= 0)
        self.seed = seed
        teamCount = teams
        sportCount = max(10, teams / 50)
        popularity = ZipfianGenerator(count: sportCount)
    }

    public func sport(id: Int64) -> Sport {
        var rng = SplitMix64(seed: seed, stream: .sports, index: UInt64(id))
        return Sport(id: id, name: "\(Names.pick(using: &rng)) \(Names.pick(using: &rng)) \(id)")
    }

    public func team(id: Int64) -> Team {
        var rng = SplitMix64(seed: seed, stream: .teams, index: UInt64(id))
        var sportID = Int64(popularity.next(using: &rng)) + 1
        if sportID % 10 == 0 { sportID -= 1 }
        return Team(id: id, sportID: sportID, name: "\(Names.pick(using: &rng)) \(Names.pick(using: &rng)) \(id)")
    }

    public var sports: [Sport] { (1...Int64(sportCount)).map(sport(id:)) }
}

/// Short words for the names of generated records.
enum Names {
    static func pick(using rng: inout SplitMix64) -> String {
        words[Int(rng.below(UInt64(words.count)))]
    }

    static let words = [
        "North", "South", "East", "West", "Red", "Blue", "Green", "Golden", "Silver", "Iron", "River", "Lake",
        "Hill", "Valley", "Harbour", "Forest", "Stone", "Oak", "Maple", "Cedar", "Eagle", "Falcon", "Wolf", "Bear",
        "Lion", "Tiger", "Rovers", "United", "City", "Athletic", "Wanderers", "Rangers", "Kitchen", "Study",
        "Bedroom", "Bathroom", "Hall", "Pantry", "Attic", "Cellar", "Loft", "Gallery", "Library", "Office",
    ]
}
