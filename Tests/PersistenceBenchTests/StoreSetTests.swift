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

    /// `make check-counters` judges the committed baselines' matrices: made again, each counts its set, and every
    /// workload of the catalogue a counted run can repeat is in one of them.
    @Test func theCommittedCounterBaselinesCountTheirSets() throws {
        let results = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("results")
        var workloads: Set<String> = []
        for (directory, set) in [
            ("counter-baseline", StoreSet.counted), ("counter-baseline-workloads", .countedEngines),
            ("counter-baseline-variants", .countedVariants),
        ] {
            let baseline = try RunResults.load(
                from: results.appendingPathComponent(directory).appendingPathComponent("results.json"))
            #expect(baseline.configuration.stores == Self.names(set), "\(directory)")
            #expect(baseline.configuration.counted == true)
            workloads.formUnion(baseline.configuration.workloads)
        }
        // What a counted run cannot repeat: work paced by the clock or raced by another thread (the readers beside a
        // writer, an observer's notices, a held snapshot's reader, read-while-import's open-loop reads), or done in
        // another process (open, two-processes).
        let timed: Set = [
            "read-while-import", "get-readers", "page-readers", "search-readers", "two-processes", "open", "observe",
            "observe-burst", "pinned-reader",
        ]
        #expect(Set(WorkloadCatalog.all.map(\.name)).subtracting(timed) == workloads)
    }

    @Test func listPrintsASetsNames() throws {
        let run = try runTool(["list", "--names", "counted"])
        #expect(run.status == 0)
        #expect(
            run.output.trimmingCharacters(in: .whitespacesAndNewlines) == Self.names(.counted).joined(separator: ","))
    }
}
