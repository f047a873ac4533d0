import Foundation
import PersistenceBench
import Testing

/// `open`: a cold open in a fresh process.
///
/// Its digest agreement across stores is in `StoreConformanceTests`.
@Suite struct OpenWorkloadTests {
    @Test func droppingAStoreFromThePageCacheLeavesNoneOfItCached() throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("data")
        try Data(repeating: 7, count: 4 << 20).write(to: file)
        _ = try Data(contentsOf: file)
        #expect(try FileSystem.cachedBytes(under: directory.url) > 0)
        try FileSystem.dropFromPageCache(directory.url)
        #expect(try FileSystem.cachedBytes(under: directory.url) == 0)
    }

    @Test(arguments: itemStoreNames)
    func openTimesTheOpenAndTheFirstPageApart(store name: String) throws {
        let directory = try TemporaryDirectory()
        let kind = try storeKind(name)
        let metrics = try measureCell(OpenWorkload(), on: kind, in: directory.url, scale: 2_000, batchSize: 500)
        #expect(metrics.phase.operations == 2)
        let byKind = try #require(metrics.phase.latencyByOperation)
        #expect(Set(byKind.keys) == ["OPEN", "FIRST-PAGE"])
        #expect(metrics.digest.count == 1)
    }
}
