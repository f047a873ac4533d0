import Foundation
import PersistenceBench

/// The house workloads on `packed`, through `PackedGraph` (opened the first time they are used, so that a store of
/// items alone has no graph files).
extension PackedItemStore: HouseStore {
    public func insert(houses: [House]) throws { try graph().insert(houses: houses) }
    public func forEachHouse(_ body: (House) throws -> Void) throws { try graph().forEachHouse(body) }
    public func deleteHouses(ids: [Int64]) throws { try graph().deleteHouses(ids: ids) }
    public func houseCounts() throws -> HouseCounts { try graph().houseCounts() }
}
