import Foundation
import PersistenceBench

/// The house workloads on `packed`, through `PackedGraph` (opened the first time they are used, so that a store of
/// items alone has no graph files).
extension PackedItemStore: HouseStore {
    package func insert(houses: [House]) throws { try graph().insert(houses: houses) }
    package func forEachHouse(_ body: (House) throws -> Void) throws { try graph().forEachHouse(body) }
    package func deleteHouses(ids: [Int64]) throws { try graph().deleteHouses(ids: ids) }
    package func houseCounts() throws -> HouseCounts { try graph().houseCounts() }
}
