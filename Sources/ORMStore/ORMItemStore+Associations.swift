import Foundation
import PersistenceBench
import SQLiteSupport

/// The association workloads done the object-graph way (`ObjectGraphStore.swift` says how reads fault or prefetch).
extension ObjectGraphStore {
    /// Inserts and saves the sports: the teams that follow fetch them as saved objects.
    package func insert(sports: [Sport]) throws {
        for sport in sports {
            let object = Model.Sport(context: context)
            object.id = sport.id
            object.name = sport.name
        }
        try context.save()
        if savesEveryBatch { resetContext() }
    }

    /// Fetches the batch's sports and inserts its teams into them.
    package func insert(teams: [Team]) throws {
        let sportIDs = Array(Set(teams.map(\.sportID)))
        let sports = Dictionary(
            try context.fetch(FetchDescriptor<Model.Sport>(predicate: Model.Sport.id.isIn(sportIDs))).map {
                ($0.id, $0)
            },
            uniquingKeysWith: { first, _ in first })
        for team in teams {
            guard let sport = sports[team.sportID] else {
                throw ORMError.objectNotFound("sport \(team.sportID), named by team \(team.id),")
            }
            let object = Model.Team(context: context)
            object.id = team.id
            object.name = team.name
            object.sport = sport
        }
        try endBatch()
    }

    package func teamCountsBySport() throws -> [TeamCount] {
        let sports = try context.fetch(
            FetchDescriptor<Model.Sport>(
                sortBy: [FetchSortDescriptor(Model.Sport.id)],
                relationshipKeyPathsForPrefetching: prefetchesRelationships ? ["teams"] : []))
        return sports.map { TeamCount(sportID: $0.id, sportName: $0.name, teams: $0.teams.count) }
    }
}
