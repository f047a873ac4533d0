import Foundation
import Testing

@testable import PersistenceBench

/// What a long run says about how long: the estimate from cells measured, and `run --dry-run`.
@Suite struct RunEstimateTests {
    static func cell(_ store: String, _ workload: String, _ records: Int, seconds: Double) -> CellResult {
        var cell = CellResult(
            CellID(store: store, workload: workload, scale: Scale(records: records), repetition: 1), status: .ok)
        cell.runSeconds = seconds
        return cell
    }

    @Test func measuredCellsAreExtrapolatedByTheirGrowth() throws {
        let estimate = RunEstimate(measured: [
            Self.cell("a", "insert", 10_000, seconds: 0.9), Self.cell("a", "insert", 10_000, seconds: 1.1),
            Self.cell("a", "insert", 100_000, seconds: 10), Self.cell("a", "insert", 1_000_000, seconds: 100),
            Self.cell("b", "insert", 10_000, seconds: 4),
            Self.cell("b", "get", 10_000, seconds: 2),
        ])
        // Measured at its scale: the median.
        #expect(estimate.seconds(store: "a", workload: "insert", scale: Scale(records: 10_000)) == 1)
        // Beyond: the power law over the largest three scales (here t ∝ N).
        let tenMillion = try #require(
            estimate.seconds(store: "a", workload: "insert", scale: Scale(records: 10_000_000)))
        #expect(abs(tenMillion - 1000) / 1000 < 0.05, "\(tenMillion)")
        // One scale only: in proportion to N.
        #expect(estimate.seconds(store: "b", workload: "insert", scale: Scale(records: 100_000)) == 40)
        // Never measured: the workload's median seconds per record, else every cell's.
        let c = try #require(estimate.seconds(store: "c", workload: "get", scale: Scale(records: 100_000)))
        #expect(abs(c - 20) < 1e-9)
        #expect(estimate.seconds(store: "c", workload: "scan", scale: Scale(records: 10_000)) != nil)
        #expect(RunEstimate(measured: []).seconds(store: "a", workload: "insert", scale: Scale(records: 1)) == nil)
    }

    /// The flagship sweep's shard 4 at 2ae864f: `get` ran three repetitions at 1M and one at 3M, and the first cell
    /// at each scale waited for the fixture's load (51 s and 215 s).
    ///
    /// Mixed into the cells' own time, that read as N^4.6 and estimated `get 10M` at 13 hours; kept apart, the cell is
    /// about two seconds and the load once.
    @Test func aFixtureLoadIsEstimatedOnceApartFromTheCells() throws {
        func cell(_ workload: String, _ records: Int, run: Double, process: Double) -> CellResult {
            var cell = Self.cell("sqlite", workload, records, seconds: run)
            cell.process = ProcessUsage(wallSeconds: process, userCPUSeconds: 0, systemCPUSeconds: 0, peakRSSBytes: 0)
            return cell
        }
        // Recorded before `fixtureSeconds`: the first cell of a scale loaded it; the others' time beyond their
        // process is the fixture's copy (0.5–1 s), but for `search` 3M, which the run resumed at: it loaded it anew.
        let estimate = RunEstimate(measured: [
            cell("get", 1_000_000, run: 51, process: 0.58), cell("get", 1_000_000, run: 1.2, process: 0.62),
            cell("get", 1_000_000, run: 1.3, process: 0.67), cell("page", 1_000_000, run: 2, process: 1.5),
            cell("get", 3_000_000, run: 215, process: 0.58), cell("page", 3_000_000, run: 3, process: 2),
            cell("search", 3_000_000, run: 180, process: 60),
        ])
        // The cells' own: its process and its copy, 1.2–1.6 s.
        let tenMillion = Scale(records: 10_000_000)
        let get = try #require(estimate.seconds(store: "sqlite", workload: "get", scale: tenMillion))
        #expect(get > 1.5 && get < 3, "\(get)")
        #expect(try #require(estimate.seconds(store: "sqlite", workload: "search", scale: tenMillion)) < 500)
        // The loads: 49.8 s at 1M, 213.4 s and 119 s at 3M, so about N^1.06 and 570 s at 10M.
        let load = try #require(estimate.loadSeconds(store: "sqlite", fixture: "items", scale: tenMillion))
        #expect(load > 300 && load < 800, "\(load)")
        // Planned: the first cell of the scale waits for the load, the next one of the same store does not, a cell of
        // another store loads its own (from the fixture's seconds per record), an insert needs none.
        let (sqlite, memory) = (try storeKind("sqlite"), try storeKind("memory"))
        let (getWorkload, insert) = (
            try #require(WorkloadCatalog.workload(named: "get")),
            try #require(WorkloadCatalog.workload(named: "insert"))
        )
        let perCell = try #require(
            estimate.secondsPerCell(of: [
                PlannedCell(store: sqlite, workload: getWorkload, scale: tenMillion, repetition: 1),
                PlannedCell(store: sqlite, workload: getWorkload, scale: tenMillion, repetition: 2),
                PlannedCell(store: memory, workload: getWorkload, scale: tenMillion, repetition: 1),
                PlannedCell(store: memory, workload: insert, scale: tenMillion, repetition: 1),
            ]))
        #expect(perCell[0] > 300 && perCell[1] < 3 && perCell[2] > 100 && perCell[3] > 0, "\(perCell)")
        // Continuing the run at 3M, the fixture is loaded already; a new run loads it again.
        let next = [PlannedCell(store: sqlite, workload: getWorkload, scale: Scale(records: 3_000_000), repetition: 2)]
        #expect(try #require(estimate.seconds(of: next, continuing: true)) < 3)
        #expect(try #require(estimate.seconds(of: next)) > 100)
    }

    /// Results that record the load (`fixtureSeconds`) are split as recorded, whichever cell waited for it.
    @Test func aRecordedLoadIsTakenAsRecorded() throws {
        var loader = Self.cell("sqlite", "page", 1_000_000, seconds: 31)
        loader.fixtureSeconds = 30
        var copied = Self.cell("sqlite", "get", 1_000_000, seconds: 2)
        copied.process = ProcessUsage(wallSeconds: 1, userCPUSeconds: 0, systemCPUSeconds: 0, peakRSSBytes: 0)
        let estimate = RunEstimate(runs: [[copied, loader]])
        let scale = Scale(records: 1_000_000)
        #expect(estimate.seconds(store: "sqlite", workload: "page", scale: scale) == 1)
        #expect(estimate.seconds(store: "sqlite", workload: "get", scale: scale) == 2)
        #expect(estimate.loadSeconds(store: "sqlite", fixture: "items", scale: scale) == 30)
    }

    /// A fixture reused from the cache was not loaded: its cell's digest check is no load to estimate from, and a
    /// fixture the cache holds costs the run none.
    @Test func aCachedFixtureIsNoLoad() throws {
        var reused = Self.cell("sqlite", "page", 1_000_000, seconds: 1.5)
        reused.fixtureSeconds = 0.5
        reused.fixture = FixtureCache.Use(name: "items", built: false, bytes: 1, checked: "digest")
        #expect(
            RunEstimate(runs: [[reused]]).loadSeconds(store: "sqlite", fixture: "items", scale: reused.scale) == nil)
        var loader = Self.cell("sqlite", "page", 1_000_000, seconds: 31)
        loader.fixtureSeconds = 30
        let estimate = RunEstimate(runs: [[loader]])
        let cell = [
            PlannedCell(
                store: try storeKind("sqlite"), workload: try #require(WorkloadCatalog.workload(named: "get")),
                scale: Scale(records: 1_000_000), repetition: 1)
        ]
        #expect(try #require(estimate.secondsPerCell(of: cell)).first == 31)
        #expect(try #require(estimate.secondsPerCell(of: cell, cached: { _, _ in true })).first == 1)
    }

    /// The flagship sweep's shard 3: `json search 10M` was DNF in 0.5 s (its fixture's load went over the memory
    /// budget), and taken as measured, the power law from 45 s at 1M to it estimated `json search 10k` at 101 hours.
    ///
    /// Only finished cells give a cell's time; the failed load still gives the load's.
    @Test func aCellThatDidNotFinishDoesNotGiveItsWorkATime() throws {
        var failed = Self.cell("json", "search", 10_000_000, seconds: 400.5)
        failed.status = .dnf
        failed.fixtureSeconds = 400
        let estimate = RunEstimate(runs: [[Self.cell("json", "search", 1_000_000, seconds: 45), failed]])
        #expect(estimate.seconds(store: "json", workload: "search", scale: Scale(records: 10_000)) == 0.45)
        #expect(estimate.seconds(store: "json", workload: "search", scale: Scale(records: 10_000_000)) == 450)
        #expect(estimate.loadSeconds(store: "json", fixture: "items", scale: Scale(records: 10_000_000)) == 400)
    }

    /// The flagship sweep's shard 2: `json observe` took 88 s at 10k, and in proportion to N the estimate put 24
    /// hours on it at 10M, 36 h 44 min on what remained of the shard.
    ///
    /// The runner stops a cell at its budget and runs no more of its store and workload at its scale or above; the
    /// estimate now does the same.
    @Test func aCellIsEstimatedAtMostItsBudgetAndNothingOfItsWorkAfterIt() throws {
        let (json, memory, sqlite) = (try storeKind("json"), try storeKind("memory"), try storeKind("sqlite"))
        let (insert, get) = (
            try #require(WorkloadCatalog.workload(named: "insert")),
            try #require(WorkloadCatalog.workload(named: "get"))
        )
        var loader = Self.cell("sqlite", "get", 1_000_000, seconds: 31)
        loader.fixtureSeconds = 30
        let measured = [
            Self.cell("json", "insert", 10_000, seconds: 88), Self.cell("memory", "insert", 10_000, seconds: 1),
            loader,
        ]
        func planned(_ store: StoreKind, _ workload: any Workload, _ records: Int, _ repetition: Int = 1) -> PlannedCell
        {
            PlannedCell(store: store, workload: workload, scale: Scale(records: records), repetition: repetition)
        }
        let plan = [
            planned(json, insert, 100_000), planned(json, insert, 1_000_000), planned(json, insert, 1_000_000, 2),
            planned(json, insert, 10_000_000), planned(memory, insert, 1_000_000), planned(sqlite, get, 10_000_000),
            planned(sqlite, get, 10_000_000, 2),
        ]
        let budgets = RunEstimate.Budgets(cellSeconds: 1800, fixtureSeconds: 100)
        let estimate = RunEstimate(measured: measured)
        // Without budgets, in proportion to N from one scale: 880 s, 8,800 s twice, 88,000 s; 100 s; a 300 s load
        // and 10 s, then 10 s.
        let unbounded = try #require(estimate.secondsPerCell(of: plan))
        #expect(unbounded.map { $0.rounded() } == [880, 8800, 8800, 88_000, 100, 310, 10], "\(unbounded)")
        // With them: json's insert at 1M stops at 30 minutes, and nothing of it runs after; sqlite's 10M load stops
        // at the fixture's 100 s, its cell does not run, nor the next.
        let bounded = try #require(estimate.secondsPerCell(of: plan, budgets: budgets))
        #expect(bounded.map { $0.rounded() } == [880, 1800, 0, 0, 100, 100, 0], "\(bounded)")
        // A cell of the run being resumed that did not finish stops its work there; an earlier run's does not (it
        // had budgets of its own).
        var stopped = Self.cell("json", "insert", 100_000, seconds: 180)
        stopped.status = .dnf
        let next = [planned(json, insert, 1_000_000)]
        #expect(RunEstimate(runs: [], resuming: measured + [stopped]).seconds(of: next, budgets: budgets) == 0)
        #expect(try #require(RunEstimate(runs: [measured + [stopped]]).seconds(of: next, budgets: budgets)) > 100)
        // What the run measured itself at a scale replaces the earlier runs' times there, not a median with them.
        let sooner = [Self.cell("json", "insert", 10_000, seconds: 2)]
        #expect(
            RunEstimate(runs: [measured], resuming: sooner).seconds(
                store: "json", workload: "insert", scale: Scale(records: 10_000)) == 2)
        #expect(
            RunEstimate(runs: [measured], resuming: sooner).seconds(
                store: "memory", workload: "insert", scale: Scale(records: 10_000)) == 1)
    }

    @Test(.tags(.endToEnd), .timeLimit(.minutes(10))) func aDryRunPrintsThePlanAndRunsNothingAndARunItsEstimate() throws
    {
        let directory = try TemporaryDirectory()
        let earlier = directory.url.appendingPathComponent("earlier").path
        #expect(
            try runTool([
                "run", "--stores", "memory,sqlite", "--workloads", "insert,scan", "--scales", "1k", "--repetitions",
                "1",
                "--out", earlier,
            ]).status == 0)
        // Each store's scan cell waited for its fixture's load, and says how long; the inserts needed none.
        let measured = try RunResults.load(from: URL(fileURLWithPath: earlier).appendingPathComponent("results.json"))
        #expect(measured.cells.filter { $0.fixtureSeconds != nil }.map(\.workload) == ["scan", "scan"])
        let out = directory.url.appendingPathComponent("never").path
        let plan = try runTool([
            "run", "--dry-run", "--stores", "memory,sqlite", "--workloads", "insert,scan", "--scales", "1k,10k",
            "--shard", "1/2", "--estimate-from", earlier, "--out", out,
        ])
        #expect(plan.status == 0, "\(plan.output)")
        // Cut by the estimate (which groups go where depends on this machine's times).
        #expect(plan.output.contains("(shard 1/2 of the matrix)"), "\(plan.output)")
        #expect(plan.output.contains("Cut by the estimated time of each group: 1/2 "), "\(plan.output)")
        #expect(plan.output.contains("Estimate: about"), "\(plan.output)")
        #expect(!FileManager.default.fileExists(atPath: out))
        let blind = try runTool(["run", "--dry-run", "--scales", "10k"])
        #expect(blind.status == 0 && blind.output.contains("No estimate"), "\(blind.output)")
        // A run told where to estimate from says so before it starts, and its progress estimates from those cells.
        let again = try runTool([
            "run", "--stores", "memory,sqlite", "--workloads", "insert,scan", "--scales", "1k", "--repetitions", "1",
            "--estimate-from", earlier, "--out", directory.url.appendingPathComponent("again").path,
        ])
        #expect(again.status == 0, "\(again.output)")
        #expect(again.output.contains("Estimate: about "), "\(again.output)")
        #expect(
            again.output.contains(" for the 4 cells that apply (the rest are n/a), from 4 cells measured before"),
            "\(again.output)")
    }
}
