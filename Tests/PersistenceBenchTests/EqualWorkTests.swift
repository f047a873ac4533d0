import Foundation
import PersistenceBench
import Reports
import Testing

/// What makes two stores' figures comparable: counts named where they are maintained, enough timed work per
/// cell, and the harness floor beside every store.
@Suite struct EqualWorkTests {
    func measure(_ workloadName: String, on store: String, scale: Int = 2_000, timeBox: TimeBox = .none) throws
        -> CellMetrics
    {
        let kind = try storeKind(store)
        let workload = try #require(WorkloadCatalog.workload(named: workloadName))
        let directory = try TemporaryDirectory()
        return try measureCell(
            workload, on: kind, in: directory.url, scale: scale, seed: 3, batchSize: 500, timeBox: timeBox)
    }

    /// A count cell is labelled where its store declares a maintained count (`lmdb`, `packed` and `memory` keep one
    /// per filter; the SQL stores count index entries), and nowhere else.
    ///
    /// `count-range` is answered by counting everywhere.
    @Test(arguments: itemStoreNames)
    func maintainedCountsAreRecordedPerCell(store name: String) throws {
        let maintained = try storeKind(name).type.maintainedCounts.contains(.itemsPerFilter)
        #expect(try measure("count-where", on: name).verification.maintainedCount == (maintained ? true : nil))
        #expect(try measure("count-range", on: name).verification.maintainedCount == nil)
    }

    @Test(arguments: associationStoreNames)
    func maintainedTeamCountsAreRecordedPerCell(store name: String) throws {
        let maintained = try storeKind(name).type.maintainedCounts.contains(.teamsPerSport)
        #expect(try measure("teams-per-sport", on: name).verification.maintainedCount == (maintained ? true : nil))
    }

    /// Both kinds of count are in the catalogue, so that the two tests above see each label given and withheld.
    @Test func theCatalogueHasMaintainedAndCountedCounts() throws {
        for count in [MaintainedCount.itemsPerFilter, .teamsPerSport] {
            let maintaining = allStoreKinds.filter { $0.type.maintainedCounts.contains(count) }
            #expect(!maintaining.isEmpty && maintaining.count < allStoreKinds.count, "\(count)")
        }
    }

    /// A count cell with a clock keeps asking until it has timed 100 ms (or a cap of answers): 32 answers of a
    /// maintained count would time the clock.
    ///
    /// The digest covers the first round only, so it does not depend on speed. Without a clock (a counted run) it asks
    /// one round.
    @Test func countCellsTimeAtLeastATenthOfASecond() throws {
        for store in ["packed", "sqlite"] {
            let metrics = try measure("count-where", on: store, timeBox: TimeBox(seconds: 0.5))
            #expect(metrics.phase.timedSeconds >= 0.1 || metrics.phase.operations >= 2_000_000, "\(store)")
            #expect(metrics.digest.count == 8 * 100, "\(store): the digest covers one round of 100 × 8")
            let once = try measure("count-where", on: store)
            #expect(once.phase.operations == 8 * 100 && once.digest == metrics.digest, "\(store)")
        }
    }

    /// `teams-per-sport` counts the answers it gives, one per sport, not the teams a store may never look at.
    @Test func teamsPerSportCountsSports() throws {
        let metrics = try measure("teams-per-sport", on: "sqlite", scale: 1_000)
        #expect(metrics.phase.operations == LeagueGenerator(seed: 3, teams: 1_000).sports.count)
    }

    /// Reports keep maintained counts and the floor out of "best", and show each store's time beside the floor.
    @Test func reportsLabelMaintainedCountsAndShowTheFloor() throws {
        let stores = ["sqlite", "packed", StoreKind.harnessFloorName]
        let environment = RunEnvironment(
            cpuModel: "Test CPU", cores: 2, memoryBytes: 1 << 30, kernel: "Linux", hostname: "h", swift: "Swift",
            engines: [:], gitCommit: "abc", command: "persistbench run")
        let configuration = RunConfiguration(
            stores: stores, workloads: ["count-where"], scales: [Scale(records: 2_000)], repetitions: 1, seed: 3,
            batchSize: 500, timeBudgetSeconds: 60, memoryBudgetBytes: 1 << 30, keepStores: false)
        var results = RunResults(environment: environment, configuration: configuration, startedAt: Date())
        for store in stores {
            results.cells.append(
                CellResult(
                    CellID(store: store, workload: "count-where", scale: Scale(records: 2_000), repetition: 1),
                    status: .ok, metrics: try measure("count-where", on: store)))
        }
        let markdown = MarkdownReport.render(results)
        let rows = markdown.split(separator: "\n").filter { $0.hasPrefix("| `") }
        let packed = try #require(rows.first { $0.hasPrefix("| `packed` |") && $0.contains("ops/s") })
        #expect(packed.contains("maintained count (O(1))") && !packed.contains("★"))
        let floor = try #require(rows.first { $0.hasPrefix("| `memory` |") && $0.contains("ops/s") })
        #expect(!floor.contains("★"))
        let sqlite = try #require(rows.first { $0.hasPrefix("| `sqlite` |") && $0.contains("ops/s") })
        #expect(sqlite.contains("★"))
        #expect(markdown.contains("share of it that is the harness floor"))
    }
}
