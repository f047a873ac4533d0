import Foundation
import PersistenceBench
import StoreCatalog
import Testing

/// The store sets CI's steps run on (`persistbench list --names SET`): each drawn from the catalogue, so that a
/// new store joins them there, and the counted one the same as the committed baseline's.
@Suite struct StoreSetTests {
    static func names(_ set: StoreSet) -> [String] { set.stores.map(\.name) }

    @Test func everyStoreIsCountedOrSmokedAndTheSetsFollowTheCatalogue() throws {
        let all = Self.names(.all)
        #expect(all == allStoreNames)
        let (counted, uncounted) = (Set(Self.names(.counted)), Set(Self.names(.uncounted)))
        // Every store is in the counted gate or in the smoke run, and sqlite in both: the smoke run's reference.
        #expect(counted.union(uncounted) == Set(all))
        #expect(counted.intersection(uncounted) == ["sqlite"])
        for set in StoreSet.allCases {
            let names = Self.names(set)
            #expect(names == all.filter(names.contains), "\(set): in the catalogue's order")
        }
        #expect(Set(Self.names(.default)).isSubset(of: Set(Self.names(.search))))
        #expect(Self.names(.search).allSatisfy(searchStoreNames.contains))
        #expect(!Self.names(.live).contains("json") && !Self.names(.live).contains("plist"))
        #expect(Self.names(.live).contains("orm+swiftdata") && !Self.names(.live).contains("orm+history"))
    }

    /// `make check-counters` judges the committed baseline's matrix: made again, it counts the counted set.
    @Test func theCommittedCounterBaselineCountsTheCountedSet() throws {
        let baseline = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("results/counter-baseline/results.json")
        let results = try RunResults.load(from: baseline)
        #expect(results.configuration.stores == Self.names(.counted))
    }

    @Test func listPrintsASetsNames() throws {
        let run = try runTool(["list", "--names", "counted"])
        #expect(run.status == 0)
        #expect(
            run.output.trimmingCharacters(in: .whitespacesAndNewlines) == Self.names(.counted).joined(separator: ","))
    }
}
