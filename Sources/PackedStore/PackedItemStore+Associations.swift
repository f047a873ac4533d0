import Foundation
import PersistenceBench

/// The association workloads on `packed`, through `PackedGraph` (opened the first time they are used, so that a
/// store of items alone has no graph files).
extension PackedItemStore: AssociationStore {
    package func insert(sports: [Sport]) throws { try graph().insert(sports: sports) }
    package func insert(teams: [Team]) throws { try graph().insert(teams: teams) }
    package func teamCountsBySport() throws -> [TeamCount] { try graph().teamCountsBySport() }
}
