import Foundation
import Testing

@testable import PersistenceBench

/// The scheduler (`Runner`) over a launcher that answers in this process (`CellMeasuring`): its re-runs on a
/// group's count of steps, its two builds' lanes, its budget skips and its resumption, with no child process.
@Suite struct SchedulerTests {
    /// Measures a cell at once: on the clock a store does its own count of steps (`steps`), at most the box's count;
    /// without a clock, the box's count.
    ///
    /// A store in `overBudget` is stopped at every cell it is given. Notes every cell it was asked.
    final class TableLauncher: CellMeasuring {
        let steps: [String: Int]
        let overBudget: Set<String>
        private(set) var asked: [(cell: CellID, box: TimeBox)] = []

        init(steps: [String: Int], overBudget: Set<String> = []) {
            self.steps = steps
            self.overBudget = overBudget
        }

        func measure(_ cell: PlannedCell, box: TimeBox, keep: URL?, started: () -> Void) throws -> (
            result: CellResult, overBudget: String?
        ) {
            started()
            asked.append((cell.id, box))
            if overBudget.contains(cell.store.name) {
                return (CellResult(cell.id, status: .dnf, reason: "over its time budget"), "over its time budget")
            }
            let clocked = box.seconds == nil ? Int.max : steps[cell.store.name, default: 100]
            let done = min(box.stepLimit ?? Int.max, clocked)
            let metrics = CellMetrics(
                phase: PhaseFigures(timedSeconds: Double(done) * 1e-4, operations: done),
                resources: ResourceFigures(bytesOnDisk: 0),
                verification: CellVerification(digest: Digest(count: done, hash: UInt64(done)), steps: done))
            return (CellResult(cell.id, status: .ok, metrics: metrics), nil)
        }

        func removeFixtures() throws {}
    }

    static func configuration(scales: [Int], repetitions: Int = 2) -> RunConfiguration {
        RunConfiguration(
            stores: ["memory", "json"], workloads: [GetWorkload(distribution: .uniform).name],
            scales: scales.map(Scale.init(records:)),
            repetitions: repetitions, timeBoxSeconds: 0.5)
    }

    static func runner(
        _ configuration: RunConfiguration, launcher: TableLauncher, in directory: TemporaryDirectory
    ) throws -> Runner {
        let stores = try configuration.stores.map(storeKind)
        return try Runner(
            configuration: configuration, stores: stores, workloads: [GetWorkload(distribution: .uniform)],
            environment: RunEnvironment.current(stores: stores, arguments: []), outputDirectory: directory.url,
            measuring: launcher, observer: SilentObserver(), save: { _ in })
    }

    /// The faster store did more steps on the clock than the slower: whichever ran first, every cell ends on the
    /// group's count (the slower's), the faster's first cell run again on it, the second repetition without a clock.
    @Test func everyCellOfAGroupEndsOnTheFewestSteps() throws {
        let directory = try TemporaryDirectory()
        let launcher = TableLauncher(steps: ["memory": 500, "json": 100])
        let results = try Self.runner(Self.configuration(scales: [1_000]), launcher: launcher, in: directory).run()
        #expect(results.cells.count == 4)
        #expect(results.cells.allSatisfy { $0.metrics?.verification.steps == 100 }, "\(results.cells)")
        let memoryAsked = launcher.asked.filter { $0.cell.store == "memory" }
        #expect(memoryAsked.last?.box.stepLimit == 100 && memoryAsked.last?.box.seconds == nil)
        let second = launcher.asked.filter { $0.cell.repetition == 2 }
        #expect(second.count == 2 && second.allSatisfy { $0.box.stepLimit == 100 && $0.box.seconds == nil })
        #expect(results.digestChecks.allSatisfy { $0.agreed })
    }

    /// A store stopped over its budget at one scale is not run at a larger one: its cells there are DNF, saying
    /// why, and never reach the launcher; the other store runs everywhere.
    @Test func aStoreOverItsBudgetIsSkippedAtLargerScales() throws {
        let directory = try TemporaryDirectory()
        let launcher = TableLauncher(steps: ["memory": 100], overBudget: ["json"])
        let results = try Self.runner(Self.configuration(scales: [1_000, 2_000]), launcher: launcher, in: directory)
            .run()
        #expect(!launcher.asked.contains { $0.cell.store == "json" && $0.cell.scale.records == 2_000 })
        let skipped = results.cells.filter { $0.store == "json" && $0.scale.records == 2_000 }
        #expect(skipped.count == 2)
        #expect(skipped.allSatisfy { $0.status == .dnf && $0.reason?.hasPrefix("not run: repetition 1 at") == true })
        #expect(results.cells.filter { $0.store == "memory" }.allSatisfy { $0.status == .ok })
    }

    /// A run resumed from its first two cells asks the launcher only for the rest, and ends with every cell once.
    @Test func aResumedRunRunsOnlyWhatItHadNot() throws {
        let directory = try TemporaryDirectory()
        let configuration = Self.configuration(scales: [1_000])
        let whole = try Self.runner(configuration, launcher: TableLauncher(steps: [:]), in: directory).run()
        var interrupted = whole
        interrupted.cells = Array(whole.cells.prefix(2))
        interrupted.finishedAt = nil
        let launcher = TableLauncher(steps: [:])
        let stores = try configuration.stores.map(storeKind)
        let resumed = try Runner(
            resuming: interrupted, on: whole.environment, stores: stores,
            workloads: [GetWorkload(distribution: .uniform)],
            outputDirectory: directory.url, measuring: launcher, observer: SilentObserver(), save: { _ in })
        #expect(resumed.cellsKept == 2 && resumed.groupsRunAgain.isEmpty)
        let results = try resumed.run()
        #expect(Set(launcher.asked.map(\.cell)) == Set(whole.cells.dropFirst(2).map(\.id)))
        #expect(Set(results.cells.map(\.id)) == Set(whole.cells.map(\.id)) && results.cells.count == 4)
    }

    /// Two builds in turn: each side's launcher is asked its side's cells only, every cell of the matrix once; a
    /// series' first run on the clock (the base's, which goes first) sets the count both builds' later runs do, so
    /// that the two are compared on the same steps.
    @Test func twoBuildsRunInTurnEachOnItsOwnLane() throws {
        let directory = try TemporaryDirectory()
        let configuration = Self.configuration(scales: [1_000], repetitions: 3)
        let stores = try configuration.stores.map(storeKind)
        let launchers = Sides(
            base: TableLauncher(steps: ["memory": 300]), current: TableLauncher(steps: ["memory": 200]))
        let sides = try Runner.interleaved(
            configuration: configuration, stores: stores, workloads: [GetWorkload(distribution: .uniform)],
            environment: RunEnvironment.current(stores: stores, arguments: []),
            measuring: Sides(base: launchers.base, current: launchers.current), outputDirectory: directory.url,
            observer: SilentObserver(), save: { _, _ in })
        for side in [Side.base, .current] {
            #expect(launchers[side].asked.count == 6)
            #expect(Set(launchers[side].asked.map(\.cell)) == Set(sides[side].cells.map(\.id)))
        }
        for side in [Side.base, .current] {
            let memory = sides[side].cells.filter { $0.store == "memory" }.compactMap(\.metrics?.verification.steps)
            #expect(memory == [300, 300, 300], "\(side): \(memory)")
        }
        #expect(launchers.current.asked.filter { $0.cell.store == "memory" }.allSatisfy { $0.box.seconds == nil })
    }
}
