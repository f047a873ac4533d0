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
        func context() -> WorkloadContext {
            WorkloadContext(
                scale: scale, seed: 3, batchSize: 500, stopwatch: Stopwatch(), progress: ProgressReporter(),
                timeBox: timeBox)
        }
        try CellExecution.loadFixture(of: workload, into: kind, at: directory.url, context: context())
        return try CellExecution.measure(workload, on: kind, at: directory.url, context: context())
    }

    /// `lmdb`, `packed` and `memory` keep a count per filter; the SQL stores count index entries. `count-range`
    /// is answered by counting everywhere.
    @Test func maintainedCountsAreRecordedPerCell() throws {
        for store in ["lmdb", "packed", "memory"] {
            #expect(try measure("count-where", on: store).maintainedCount == true, "\(store)")
            #expect(try measure("count-range", on: store).maintainedCount == nil, "\(store)")
        }
        for store in ["sqlite", "grdb+statements", "orm"] {
            #expect(try measure("count-where", on: store).maintainedCount == nil, "\(store)")
        }
        #expect(try measure("teams-per-sport", on: "lmdb").maintainedCount == true)
        #expect(try measure("teams-per-sport", on: "sqlite").maintainedCount == nil)
    }

    /// A count cell with a clock keeps asking until it has timed 100 ms (or a cap of answers): 32 answers of a
    /// maintained count would time the clock. The digest covers the first round only, so it does not depend on
    /// speed. Without a clock (a counted run) it asks one round.
    @Test func countCellsTimeAtLeastATenthOfASecond() throws {
        for store in ["packed", "sqlite"] {
            let metrics = try measure("count-where", on: store, timeBox: TimeBox(seconds: 0.5))
            #expect(metrics.timedSeconds >= 0.1 || metrics.operations >= 2_000_000, "\(store)")
            #expect(metrics.digest.count == 8 * 100, "\(store): the digest covers one round of 100 × 8")
            let once = try measure("count-where", on: store)
            #expect(once.operations == 8 * 100 && once.digest == metrics.digest, "\(store)")
        }
    }

    /// `teams-per-sport` counts the answers it gives, one per sport, not the teams a store may never look at.
    @Test func teamsPerSportCountsSports() throws {
        let metrics = try measure("teams-per-sport", on: "sqlite", scale: 1_000)
        #expect(metrics.operations == LeagueGenerator(seed: 3, teams: 1_000).sports.count)
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
                    store: store, workload: "count-where", scale: Scale(records: 2_000), repetition: 1, status: .ok,
                    metrics: try measure("count-where", on: store)))
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
