import Foundation
import MemoryStore
import Testing

@testable import PersistenceBench

/// The run engine's policies, each on its own and in-process: the plan and what a resumed run keeps of it, the
/// time box each cell gets, and the skip after a cell over its budget.
@Suite struct RunPlanTests {
    static func configuration(repetitions: Int = 2) -> RunConfiguration {
        var configuration = RunConfiguration(
            stores: ["memory", "json"], workloads: ["get", "insert-each"],
            scales: [Scale(records: 1_000), Scale(records: 2_000)], repetitions: repetitions, seed: 42,
            batchSize: 100, timeBudgetSeconds: 60, memoryBudgetBytes: 1 << 30, keepStores: false)
        configuration.timeBoxSeconds = 0.5
        configuration.floorSeconds = 20
        return configuration
    }

    static func plan(_ configuration: RunConfiguration = configuration()) throws -> RunPlan {
        RunPlan(
            configuration, stores: [MemoryItemStore.kind, try storeKind("json")],
            workloads: [GetWorkload(distribution: .uniform), InsertEachWorkload()])
    }

    static func result(_ cell: PlannedCell, steps: Int? = nil, short: Bool = false, bootID: String? = "one")
        -> CellResult
    {
        var result = CellResult(cell.id, status: .ok)
        result.metrics = CellMetrics(
            phase: PhaseFigures(timedSeconds: 0.1, operations: steps ?? 1), resources: ResourceFigures(bytesOnDisk: 0),
            verification: CellVerification(digest: Digest(), steps: steps))
        result.metrics?.verification.stoppedShort = short ? true : nil
        result.bootID = bootID
        return result
    }

    @Test func thePlanRunsEveryStoreOnceARepetitionGroupByGroup() throws {
        let plan = try Self.plan()
        #expect(plan.cells.count == 2 * 2 * 2 * 2)
        #expect(plan.groups.map(\.description) == ["get 1k", "insert-each 1k", "get 2k", "insert-each 2k"])
        for group in plan.groups {
            for repetition in 1...2 {
                let stores = plan.cells.filter { $0.group == group && $0.repetition == repetition }.map(\.store.name)
                #expect(stores.sorted() == ["json", "memory"])
            }
        }
        // Identities are unique and name what they identify.
        #expect(Set(plan.cells.map(\.id)).count == plan.cells.count)
        #expect(plan.cells[0].id.description.hasSuffix("get 1k rep 1"))
        let done = Set(plan.cells.prefix(5).map(\.id))
        #expect(plan.remaining(after: done).map(\.id) == plan.cells.dropFirst(5).map(\.id))
    }

    /// Past its time box, a loop under a budget floor goes on toward the floor while its pace reaches it within half
    /// again the floor's time, else toward the 100 samples of a p99 at a pace that reaches those within it, else
    /// stops: after 30 ms, 10 steps project 1,000 in 3 s or more and 100 in 0.3 s or more, 100 steps 1,000 in 0.3 s.
    @Test func aLoopTooSlowToReachItsFloorInTimeStopsAtItsTimeBox() throws {
        for (floorSeconds, done, goesOn) in [(60.0, 10, true), (1.5, 10, true), (0.1, 100, false), (0.2, 10, false)] {
            var box = TimeBox(seconds: 0.001, floor: TimeBox.budgetSamples, floorSeconds: floorSeconds).start(
                steps: 10_000)
            Thread.sleep(forTimeInterval: 0.03)
            let goesOnNow = box.allowsMore(after: done)
            #expect(goesOnNow == goesOn, "floor time \(floorSeconds) s, \(done) steps")
            // Never before its fewest steps, whatever its pace.
            let beforeFewest = box.allowsMore(after: TimeBox.minimumSteps - 1)
            #expect(beforeFewest)
            #expect(box.stoppedShort(after: done))
        }
        // Its pace is the steps' after the first: a first page of 200 ms then fast ones (json's first page at 1M took
        // 4 s, then 3 µs a page) does not give up a floor of 1,000 in a second.
        var slowFirst = TimeBox(seconds: 0.001, floor: TimeBox.budgetSamples, floorSeconds: 1).start(steps: 10_000)
        Thread.sleep(forTimeInterval: 0.2)
        let (afterFirst, afterTen) = (slowFirst.allowsMore(after: 1), slowFirst.allowsMore(after: TimeBox.minimumSteps))
        #expect(afterFirst && afterTen)
        // Whatever its pace, no loop goes on past the floor's time.
        var late = TimeBox(seconds: 0.001, floor: TimeBox.budgetSamples, floorSeconds: 0.025).start(steps: 10_000)
        let early = late.allowsMore(after: 1)
        Thread.sleep(forTimeInterval: 0.03)
        let pastFloorTime = late.allowsMore(after: 999)
        #expect(early && !pastFloorTime)
    }

    @Test func theFirstRepetitionSetsTheGroupsCountAndAStoreShortOfTheFloorKeepsItsOwn() throws {
        let plan = try Self.plan()
        var counts = StepCounts(Self.configuration())
        let group = plan.cells.filter { $0.workload.name == "insert-each" && $0.scale.records == 1_000 }
        let (first, second) = (group[0], group[1])
        // Nothing measured: the clock, no count, and the budget floor for a workload judged against a budget.
        let opening = counts.box(for: first)
        #expect(opening.seconds == 0.5 && opening.stepLimit == nil && opening.floor == TimeBox.budgetSamples)
        counts.record(Self.result(first, steps: 1_200))
        #expect(counts.box(for: second).stepLimit == 1_200 && counts.box(for: second).seconds == 0.5)
        counts.record(Self.result(second, steps: 1_000))
        // The first cell did more than the group's count: it runs again on exactly that count, without a clock.
        let again = try #require(counts.rerun(Self.result(first, steps: 1_200), of: first.workload))
        #expect(again.stepLimit == 1_000 && again.seconds == nil)
        #expect(counts.rerun(Self.result(second, steps: 1_000), of: second.workload) == nil)
        // Later repetitions: the count, no clock.
        let later = try #require(group.first { $0.repetition == 2 })
        #expect(counts.box(for: later).stepLimit == 1_000 && counts.box(for: later).seconds == nil)

        // A store that stopped short of the floor on its own time does not lower the group's count; its later
        // repetitions repeat its own.
        var short = StepCounts(Self.configuration())
        short.record(Self.result(first, steps: 1_000))
        short.record(Self.result(second, steps: 40, short: true))
        let secondLater = try #require(
            plan.cells.first { $0.id.series == second.id.series && $0.repetition == 2 })
        let firstLater = try #require(plan.cells.first { $0.id.series == first.id.series && $0.repetition == 2 })
        #expect(short.box(for: secondLater).stepLimit == 40)
        #expect(short.box(for: firstLater).stepLimit == 1_000)

        // A workload with no budget has no floor; a counted run has its fixed count and no clock.
        let get = try #require(plan.cells.first { $0.workload.name == "get" })
        #expect(counts.box(for: get).floor == nil)
        var counted = Self.configuration()
        counted.counted = true
        #expect(StepCounts(counted).box(for: first) == TimeBox(seconds: nil, stepLimit: CountingLauncher.steps))
    }

    @Test func twoBuildsRunEachCellsRepetitionsInTurnAndItsFirstRunSetsItsCount() throws {
        let configuration = Self.configuration(repetitions: 3)
        let plan = RunPlan.interleaved(
            configuration, stores: [MemoryItemStore.kind, try storeKind("json")],
            workloads: [GetWorkload(distribution: .uniform), InsertEachWorkload()], first: .current)
        #expect(plan.interleaved && plan.cells.count == 2 * 2 * 2 * 3 * 2)
        // Each (scale, workload, store) whole before the next, stores in the configuration's order, and the builds
        // in turn: the first side first in odd repetitions.
        let head = plan.cells.prefix(6).map { "\($0.store.name) \($0.repetition) \($0.side)" }
        #expect(
            head == [
                "memory 1 current", "memory 1 base", "memory 2 base", "memory 2 current", "memory 3 current",
                "memory 3 base",
            ])
        #expect(plan.groups.map(\.description) == ["get 1k", "insert-each 1k", "get 2k", "insert-each 2k"])
        // The first run of a cell, on either side, is on the clock and sets the count of its others, without a
        // budget floor; another cell of the group keeps its own.
        var counts = StepCounts(configuration, perCell: true)
        let cell = plan.cells[0]
        #expect(counts.box(for: cell).seconds == 0.5 && counts.box(for: cell).stepLimit == nil)
        counts.record(Self.result(cell, steps: 700))
        for other in plan.cells[1..<6] {
            #expect(counts.box(for: other).seconds == nil && counts.box(for: other).stepLimit == 700)
            #expect(counts.box(for: other).floor == nil)
            counts.record(Self.result(other, steps: 300))
        }
        #expect(counts.box(for: plan.cells[6]).seconds == 0.5)
        #expect(counts.rerun(Self.result(plan.cells[1], steps: 900), of: cell.workload) == nil)
    }

    @Test func aCellOverItsBudgetStopsItsStoreAndWorkloadAtThatScaleAndAbove() throws {
        let plan = try Self.plan()
        var skip = BudgetSkip()
        let stopped = try #require(
            plan.cells.first { $0.store.name == "json" && $0.workload.name == "get" && $0.scale.records == 2_000 })
        skip.record(stopped, overBudget: "at the time budget")
        for cell in plan.cells {
            let skipped = skip.reason(toSkip: cell) != nil
            #expect(skipped == (cell.id.series == stopped.id.series), "\(cell.id)")
        }
        let reason = try #require(skip.reason(toSkip: stopped))
        #expect(reason.contains("at 2k was stopped at the time budget"))
    }

    @Test func aResumedRunKeepsFinishedCellsAndRunsAgainWholeAGroupBegunElsewhere() throws {
        let plan = try Self.plan()
        var interrupted = RunResults(
            environment: RunEnvironment(
                cpuModel: "CPU", cores: 2, memoryBytes: 1 << 30, kernel: "Linux", hostname: "h", swift: "Swift",
                engines: [:], gitCommit: "abc", command: "persistbench run"),
            configuration: Self.configuration(), startedAt: Date())
        interrupted.environment.bootID = "one"
        // The first group finished; the second begun (one cell), one cell of it stopped from outside.
        let firstGroup = plan.cells.filter { $0.group == plan.groups[0] }
        let secondGroup = plan.cells.filter { $0.group == plan.groups[1] }
        var stoppedFromOutside = Self.result(secondGroup[1])
        stoppedFromOutside.interrupted = true
        interrupted.cells = firstGroup.map { Self.result($0) } + [Self.result(secondGroup[0]), stoppedFromOutside]

        let here = Resumption(interrupted, plan: plan, bootID: "one")
        #expect(Set(here.kept.keys) == Set(firstGroup.map(\.id) + [secondGroup[0].id]))
        #expect(here.groupsRunAgain.isEmpty)
        #expect(Resumption.done(interrupted) == Set(here.kept.keys))

        // On another machine the unfinished group runs again whole; the finished one is kept.
        let elsewhere = Resumption(interrupted, plan: plan, bootID: "two")
        #expect(Set(elsewhere.kept.keys) == Set(firstGroup.map(\.id)))
        #expect(elsewhere.groupsRunAgain == [plan.groups[1]])
    }
}

extension RunPlanTests {
    /// `run --count` deals the stores in turn to its shares, each run by a scheduler of its own in this process.
    @Test func countingSharesDealTheStoresInTurn() {
        let stores = ["a", "b", "c", "d", "e"]
        #expect(CountedShares.shares(of: stores, jobs: 2) == [["a", "c", "e"], ["b", "d"]])
        #expect(CountedShares.shares(of: stores, jobs: 1) == [stores])
        #expect(CountedShares.shares(of: ["a"], jobs: 4) == [["a"]])
        #expect(CountedShares.shares(of: stores, jobs: 0) == [stores])
    }
}
