import Foundation
import PersistenceBench

/// The association and house workloads on `packed`, through `PackedGraph` (opened the first time they are used,
/// so that a store of items alone has no graph files).
extension PackedItemStore: AssociationStore, HouseStore {
    public func insert(sports: [Sport]) throws { try graph().insert(sports: sports) }
    public func insert(teams: [Team]) throws { try graph().insert(teams: teams) }
    public func teamCountsBySport() throws -> [TeamCount] { try graph().teamCountsBySport() }
    public func insert(houses: [House]) throws { try graph().insert(houses: houses) }
    public func forEachHouse(_ body: (House) throws -> Void) throws { try graph().forEachHouse(body) }
    public func deleteHouses(ids: [Int64]) throws { try graph().deleteHouses(ids: ids) }
    public func houseCounts() throws -> HouseCounts { try graph().houseCounts() }
}

/// The time profile on `packed`, through `PackedProfile` (opened the first time it is used).
extension PackedItemStore: ProfileStore {
    public func insert(samples: [Sample]) throws { try profile().insert(samples: samples) }
    public func topLeafFrames(from timestamp: Int64, samples count: Int, limit: Int) throws -> [FrameCount] {
        try profile().topLeafFrames(from: timestamp, samples: count, limit: limit)
    }
    public func forEachSample(_ body: (Sample) throws -> Void) throws { try profile().forEachSample(body) }
}
