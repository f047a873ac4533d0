import Foundation
import PersistenceBench

/// The time profile on `packed`, through `PackedProfile` (opened the first time it is used).
extension PackedItemStore: ProfileStore {
    package func insert(samples: [Sample]) throws { try profile().insert(samples: samples) }
    package func topLeafFrames(from timestamp: Int64, samples count: Int, limit: Int) throws -> [FrameCount] {
        try profile().topLeafFrames(from: timestamp, samples: count, limit: limit)
    }
    package func forEachSample(_ body: (Sample) throws -> Void) throws { try profile().forEachSample(body) }
}
