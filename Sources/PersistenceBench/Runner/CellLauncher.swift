import Foundation

/// Runs single cells, each in a child process of one executable: loads each (store, fixture, scale)'s fixture once,
/// in a child of its own, copies it for every cell, starts the cell's child, watches it against the budgets and
/// turns what it left into a result. `Runner` runs a matrix with one; `InterleavedRun` runs two builds' cells in
/// turn with one each.
final class CellLauncher {
    private let executable: String
    private let configuration: RunConfiguration
    /// Scratch space of this launcher's children: fixtures, the cell's store, the job and report files.
    private let workDirectory: URL
    private let observer: any RunObserver
    /// How counted cells start (`RunConfiguration.counted`); nil for timed cells.
    private let counting: CountingLauncher?
    private var fixtures: [String: FixtureState] = [:]

    private enum FixtureState {
        case ready(URL)
        case failed(CellResult.Status, String)
    }

    /// Throws when `configuration` counts its cells and valgrind or libOperationCounter.so is missing.
    init(executable: String, configuration: RunConfiguration, workDirectory: URL, observer: any RunObserver) throws {
        self.executable = executable
        self.configuration = configuration
        self.workDirectory = workDirectory
        self.observer = observer
        counting = configuration.counted == true ? try CountingLauncher(beside: executable) : nil
    }

    /// Runs `cell` on a fresh copy of its fixture (or in an empty directory) within `box`, calling `started` once
    /// the fixture is ready; its store's files are moved to `keep` afterwards, or removed. Returns its result and,
    /// if it outgrew a budget, why.
    func measure(_ cell: PlannedCell, box: TimeBox, keep: URL? = nil, started: () -> Void) throws -> (
        result: CellResult, overBudget: String?
    ) {
        let directory = workDirectory.appendingPathComponent("cell")
        try FileSystem.remove(directory)
        if let fixture = cell.workload.fixture {
            switch try prepareFixture(fixture, for: cell) {
            case .failed(let status, let reason):
                let result = CellResult(
                    store: cell.store.name, workload: cell.workload.name, scale: cell.scale,
                    repetition: cell.repetition, status: status, reason: "fixture \(fixture.name): \(reason)")
                return (result, nil)
            case .ready(let source):
                try FileSystem.copyForCell(from: source, to: directory)
                // Under a memory limit the cell's process must read its files itself, so the kernel charges it
                // for them: none of them may be in the page cache already, charged to the parent's cgroup.
                if configuration.memoryLimitBytes != nil { try FileSystem.dropFromPageCache(directory) }
            }
        } else {
            try FileSystem.makeDirectory(directory)
        }
        started()
        let outcome = try runChild(mode: .measure, cell: cell, directory: directory, box: box)
        if let keep {
            try FileSystem.remove(keep)
            try FileSystem.makeDirectory(keep.deletingLastPathComponent())
            try FileManager.default.moveItem(at: directory, to: keep)
        } else {
            try FileSystem.remove(directory)
        }
        return outcome
    }

    /// Forgets the fixtures loaded so far and frees their space.
    func removeFixtures() throws {
        fixtures = [:]
        try FileSystem.remove(workDirectory.appendingPathComponent("fixtures"))
    }

    private func prepareFixture(_ fixture: Fixture, for cell: PlannedCell) throws -> FixtureState {
        let key = "\(cell.store.name)/\(fixture.name)-\(cell.scale.records)"
        if let state = fixtures[key] { return state }
        observer.fixtureStarted(store: cell.store.name, fixture: fixture.name, scale: cell.scale)
        let directory = workDirectory.appendingPathComponent("fixtures").appendingPathComponent(key)
        try FileSystem.remove(directory)
        try FileSystem.makeDirectory(directory)
        let loaded = try runChild(mode: .loadFixture, cell: cell, directory: directory, box: .none).result
        let state: FixtureState =
            loaded.status == .ok ? .ready(directory) : .failed(loaded.status, loaded.reason ?? "failed")
        fixtures[key] = state
        return state
    }

    /// Starts a child for `cell`, watches it against the budgets, and turns what it left into a result.
    private func runChild(mode: CellJob.Mode, cell: PlannedCell, directory: URL, box: TimeBox) throws -> (
        result: CellResult, overBudget: String?
    ) {
        // Only the measured cell is counted: a fixture's load is untimed setup, run at full speed.
        let counted = mode == .measure && counting != nil
        try FileSystem.makeDirectory(workDirectory)
        let jobPath = workDirectory.appendingPathComponent("job.json")
        let reportPath = workDirectory.appendingPathComponent("report.json")
        let outputPath = workDirectory.appendingPathComponent("output.txt")
        try FileSystem.remove(reportPath)
        let job = CellJob(
            mode: mode, store: cell.store.name, workload: cell.workload.name, scale: cell.scale.records,
            seed: configuration.seed, batchSize: configuration.batchSize, readRate: configuration.readRate,
            timeBoxSeconds: box.seconds, stepLimit: box.stepLimit, directory: directory.path,
            reportPath: reportPath.path,
            // A counted cell reports no progress: its reports come every tenth of a second, so their allocations
            // would count the machine's speed.
            progressDescriptor: counted ? nil : 3)
        try JSONEncoder().encode(job).write(to: jobPath)

        var supervisor = CellSupervisor(
            executable: executable, outputPath: outputPath, reportPath: reportPath,
            timeBudgetSeconds: configuration.timeBudgetSeconds, memoryBudgetBytes: configuration.memoryBudgetBytes,
            memoryLimitBytes: mode == .measure ? configuration.memoryLimitBytes : nil)
        let dumps = workDirectory.appendingPathComponent("callgrind")
        if counted, let counting {
            try FileSystem.remove(dumps)
            try FileSystem.makeDirectory(dumps)
            supervisor.counting = (counting, dumps.path)
        }
        let outcome = try supervisor.run(jobPath: jobPath, observer: observer)
        var result = outcome.result(
            store: cell.store.name, workload: cell.workload.name, scale: cell.scale, repetition: cell.repetition)
        if counted, result.metrics != nil {
            result.metrics?.counts?.instructions = CountingLauncher.instructions(dumpedIn: dumps.path)
        }
        // Killed at the memory limit: the same work at a larger scale would only need more.
        return (
            result, outcome.overBudget ?? outcome.killedAtLimit.map { _ in result.reason ?? "over the memory limit" }
        )
    }
}
