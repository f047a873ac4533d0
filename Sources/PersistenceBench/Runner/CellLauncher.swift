import Foundation

/// Runs single cells, each in a child process of one executable: loads each (store, fixture, scale)'s fixture once,
/// in a child of its own, copies it for every cell, starts the cell's child, watches it against the budgets and
/// turns what it left into a result.
///
/// `Runner` runs a matrix with one, or two builds' cells in turn with one each.
final class CellLauncher: CellMeasuring {
    private let executable: String
    private let configuration: RunConfiguration
    /// Scratch space of this launcher's children: fixtures, the cell's store, the job and report files.
    private let workDirectory: URL
    private let observer: any RunObserver
    /// How counted cells start (`RunConfiguration.counted`); nil for timed cells.
    private let counting: CountingLauncher?
    /// The measured cell's store directory: `cell` in the work directory, reached by a counted cell through a
    /// path of one length in every run (`CountedPath`).
    private let cellDirectory: URL
    private let countedPath: CountedPath?
    /// The run's output directory, whose flames/ keeps each counted cell's folded stacks (`FlameFiles`).
    private let runDirectory: URL
    /// Names the frames the compiler inlined in a counted cell's stacks; without one, they are their callers'.
    private let symbolizer = Symbolizer()
    /// The fixtures this launcher copies into cells: the run's `--fixtures` cache, or one in its scratch space.
    private let fixtureCache: FixtureCache
    /// The fixtures handed out since the run last moved to another scale, checked once each.
    private var fixtures: [FixtureCache.Key: FixtureState] = [:]
    /// The executable's content digest, which keys its fixtures (`FixtureCache.Key.build`): read at the first load.
    private var build: String?
    /// Names this launcher's memory cgroup apart from another's in the same process (`CountedShares`).
    private let cgroupSuffix = UUID().uuidString.prefix(8)

    private enum FixtureState {
        case ready(FixtureCache.Key)
        case failed(CellResult.Status, String)
    }

    /// A fixture's load that did not finish: its cells are not run.
    private struct LoadFailed: Error {
        let status: CellResult.Status
        let reason: String
    }

    /// Throws when `configuration` counts its cells and valgrind or libOperationCounter.so is missing.
    init(
        executable: String, configuration: RunConfiguration, workDirectory: URL, runDirectory: URL,
        observer: any RunObserver
    ) throws {
        self.executable = executable
        self.runDirectory = runDirectory
        self.configuration = configuration
        self.workDirectory = workDirectory
        self.observer = observer
        counting = configuration.counted == true ? try CountingLauncher(beside: executable) : nil
        countedPath = counting == nil ? nil : try CountedPath(to: workDirectory)
        cellDirectory = (countedPath?.url ?? workDirectory).appendingPathComponent("cell")
        fixtureCache = try FixtureCache(
            place: configuration.fixtureCache
                ?? FixtureCache.Place(
                    directory: workDirectory.appendingPathComponent("fixtures").path, capBytes: .max))
    }

    /// Runs `cell` on a fresh copy of its fixture (or in an empty directory) within `box`, calling `started` once
    /// the fixture is ready; its store's files are moved to `keep` afterwards, or removed.
    ///
    /// Returns its result and, if it outgrew a budget, why.
    func measure(_ cell: PlannedCell, box: TimeBox, keep: URL?, started: () -> Void) throws -> (
        result: CellResult, overBudget: String?
    ) {
        let directory = cellDirectory
        try FileSystem.remove(directory)
        var fixtureSeconds: Double?
        var fixtureUse: FixtureCache.Use?
        if let fixture = cell.workload.fixture {
            let state: FixtureState
            (state, fixtureSeconds, fixtureUse) = try prepareFixture(fixture, for: cell)
            switch state {
            case .failed(let status, let reason):
                var result = CellResult(cell.id, status: status, reason: "fixture \(fixture.name): \(reason)")
                (result.fixtureSeconds, result.fixture) = (fixtureSeconds, fixtureUse)
                return (result, nil)
            case .ready(let key):
                try fixtureCache.copy(key, to: directory)
                // Under a memory limit the cell's process must read its files itself, so the kernel charges it
                // for them: none of them may be in the page cache already, charged to the parent's cgroup. Advice
                // may be ignored (a page another process maps stays): what stayed is counted, and a cell that would
                // start with its files cached is not run.
                if configuration.memoryLimitBytes != nil {
                    try FileSystem.dropFromPageCache(directory)
                    let cached = try FileSystem.cachedBytes(under: directory)
                    guard cached == 0 else {
                        var result = CellResult(
                            cell.id, status: .error,
                            reason: "\(Quantity.formatBytes(cached)) of its files stayed in the page cache after "
                                + "posix_fadvise(DONTNEED): under a memory limit a cell must read its files itself")
                        (result.fixtureSeconds, result.fixture) = (fixtureSeconds, fixtureUse)
                        try FileSystem.remove(directory)
                        return (result, nil)
                    }
                }
            }
        } else {
            try FileSystem.makeDirectory(directory)
        }
        started()
        var outcome = try runChild(mode: .measure, cell: cell, directory: directory, box: box)
        (outcome.result.fixtureSeconds, outcome.result.fixture) = (fixtureSeconds, fixtureUse)
        if let keep {
            try FileSystem.remove(keep)
            try FileSystem.makeDirectory(keep.deletingLastPathComponent())
            try FileManager.default.moveItem(at: directory, to: keep)
        } else {
            try FileSystem.remove(directory)
        }
        return outcome
    }

    /// Forgets the fixtures handed out so far: a cache in the scratch space is removed, a `--fixtures` cache keeps
    /// them within its cap.
    func removeFixtures() throws {
        fixtures = [:]
        if configuration.fixtureCache == nil { try fixtureCache.removeAll() } else { try fixtureCache.release() }
    }

    /// The fixture's state, and when this call prepared it (nil when it was prepared before at this scale) the
    /// seconds that took and where the fixture came from: loaded in a child of its own and checked, or reused.
    private func prepareFixture(_ fixture: Fixture, for cell: PlannedCell) throws -> (
        FixtureState, Double?, FixtureCache.Use?
    ) {
        let build = try self.build ?? FixtureCache.Key.build(of: executable)
        self.build = build
        let key = try FixtureCache.Key(fixture, for: cell, in: configuration, build: build)
        if let state = fixtures[key] { return (state, nil, nil) }
        let started = monotonicNanoseconds()
        let state: FixtureState
        var use: FixtureCache.Use?
        do {
            use = try fixtureCache.files(of: key) { directory in
                observer.fixtureStarted(store: cell.store.name, fixture: fixture.name, scale: cell.scale)
                let loaded = try runChild(mode: .loadFixture, cell: cell, directory: directory, box: .none).result
                guard loaded.status == .ok else {
                    throw LoadFailed(status: loaded.status, reason: loaded.reason ?? "failed")
                }
                return try check(fixture, of: cell, in: directory)
            }.use
            state = .ready(key)
        } catch let failure as LoadFailed {
            state = .failed(failure.status, failure.reason)
        }
        fixtures[key] = state
        return (state, secondsSince(started), use)
    }

    /// How a fixture just loaded into `directory` was checked: the items fixture of a store with an integrity check
    /// by that check and a read of every item, on a copy in a child (`StoreVerification`); another by its digest
    /// alone.
    private func check(_ fixture: Fixture, of cell: PlannedCell, in directory: URL) throws -> String {
        guard fixture.name == Fixture.items.name, configuration.shape == nil,
            cell.store.type is any IntegrityCheckingStore.Type
        else { return "no check of the store's own (\(fixture.name) fixture)" }
        let verification = try StoreVerification(
            cell.store, directory: directory, executable: executable, scratch: workDirectory)
        guard verification.problems.isEmpty, verification.items == cell.scale.records else {
            throw LoadFailed(
                status: .error,
                reason: "its check found it damaged after the load: "
                    + (verification.problems.first ?? "\(verification.items) items of \(cell.scale.records)"))
        }
        return "the store's integrity check and a read of its \(verification.items) items"
    }

    /// How long a wait for a cell's progress lasts before its exit and budgets are looked at again.
    static let pollMilliseconds: Int32 = 50

    /// A failed child's `reason` with what it left kept beside the results (the scratch it was in is removed): its
    /// output, and under valgrind (`valgrindLog`, its dump directory) what valgrind said and its whole log.
    private func failureReason(
        _ reason: String, output: URL, valgrindLog dumps: URL?, of cell: PlannedCell, mode: CellJob.Mode
    ) throws -> String {
        var reason = reason
        if let dumps {
            let log = dumps.appendingPathComponent("valgrind.log")
            reason += CountingLauncher.failure(loggedIn: log.path).map { "; \($0)" } ?? ""
            reason += try keep(log, of: cell, mode: mode, as: "valgrind.log", called: "valgrind's log")
        }
        return reason + (try keep(output, of: cell, mode: mode, as: "txt", called: "its output"))
    }

    /// Starts a child for `cell`, watches it against the budgets, and turns what it left into a result.
    private func runChild(mode: CellJob.Mode, cell: PlannedCell, directory: URL, box: TimeBox) throws -> (
        result: CellResult, overBudget: String?
    ) {
        // Only the measured cell is counted: a fixture's load is untimed setup, run at full speed.
        let counted = mode == .measure && counting != nil
        let job = CellJob(
            mode: mode, store: cell.store.name, workload: cell.workload.name,
            parameters: configuration.parameters(scale: cell.scale, box: box), directory: directory.path,
            buildCacheBytes: mode == .loadFixture
                ? FixtureBuild.cacheBytes(memoryBudget: configuration.memoryBudgetBytes) : nil)
        let cgroup = try (mode == .measure ? configuration.memoryLimitBytes : nil).map {
            try MemoryCgroup(name: "persistbench-\(getpid())-\(cgroupSuffix)", limitBytes: $0)
        }
        defer { try? cgroup?.remove() }
        let dumps = workDirectory.appendingPathComponent("callgrind")
        let counter = counted ? counting : nil
        if counter != nil {
            try FileSystem.remove(dumps)
            try FileSystem.makeDirectory(dumps)
        }
        let timeBudget =
            mode == .loadFixture
            ? configuration.fixtureTimeBudgetSeconds ?? configuration.timeBudgetSeconds
            : configuration.timeBudgetSeconds
        let supervisor = ChildSupervisor(
            executable: executable, directory: workDirectory, pollMilliseconds: Self.pollMilliseconds)
        let outcome = try supervisor.run(
            .cell(job), reportsProgress: !counted, environment: counter?.environment ?? [],
            wrap: { command in
                let started = counter?.wrapping(command, dumpDirectory: dumps.path) ?? command
                return cgroup?.wrapping(started) ?? started
            }
        ) { look in
            observer.progress(elapsedSeconds: look.elapsedSeconds, recordsDone: look.progress)
            return Self.decide(
                look, timeBudget: timeBudget, fixture: mode == .loadFixture,
                memoryBudget: configuration.memoryBudgetBytes,
                resident: ProcessStats.residentBytes(ofProcess: look.pid))
        }
        var killedAtLimit: Int64?
        if let cgroup, case .signaled(SIGKILL) = outcome.ending, cgroup.oomKills > 0 {
            killedAtLimit = cgroup.limitBytes
        }
        var result = Self.result(
            of: outcome,
            crashMessage: outcome.exitedCleanly ? nil : ChildSupervisor.crashMessage(at: supervisor.outputPath),
            killedAtLimit: killedAtLimit, cell: cell)
        result.process?.cappedPeakBytes = cgroup?.peakBytes
        if !outcome.exitedCleanly || result.status != .ok {
            result.reason = try failureReason(
                result.reason ?? "", output: supervisor.outputPath, valgrindLog: counted ? dumps : nil, of: cell,
                mode: mode)
        }
        if counted, result.metrics != nil, let totals = CountingLauncher.totals(dumpedIn: dumps.path) {
            result.metrics?.counts?.add(totals)
            try keepStacks(dumpedIn: dumps, of: cell)
        }
        // Killed at the memory limit: the same work at a larger scale would only need more.
        return (
            result, outcome.stopped?.description ?? killedAtLimit.map { _ in result.reason ?? "over the memory limit" }
        )
    }

    /// Copies a file of a child that crashed, was killed or failed (its output, valgrind's log) to the run's cells/
    /// (the scratch it was in is removed), and says where, for the cell's reason: the lines around the one the
    /// reason quotes.
    ///
    /// Nothing for a file missing or empty.
    private func keep(_ file: URL, of cell: PlannedCell, mode: CellJob.Mode, as suffix: String, called label: String)
        throws -> String
    {
        let name = "\(cell.id.fileName)\(mode == .loadFixture ? "-fixture" : "").\(suffix)"
        let kept = runDirectory.appendingPathComponent(OutputDirectory.keptOutputName).appendingPathComponent(name)
        guard let contents = try? Data(contentsOf: file), !contents.isEmpty else { return "" }
        try FileSystem.makeDirectory(kept.deletingLastPathComponent())
        try FileSystem.writeAtomically(contents, to: kept)
        return " (\(label): \(OutputDirectory.keptOutputName)/\(name))"
    }

    /// The counted region's call graph folded into stacks (`CallGraph`), kept in the run's flames/ for its flame
    /// graph and a later check's differential one.
    private func keepStacks(dumpedIn dumps: URL, of cell: PlannedCell) throws {
        let dump = dumps.appendingPathComponent("callgrind.out.1")
        guard let text = try? String(contentsOf: dump, encoding: .utf8) else { return }
        var graph = CallGraph(callgrindOutput: text, demangle: SwiftDemangler.frameName)
        // The tool's own executable has the debug information of what the compiler inlined (the stores, GRDB,
        // the harness and the standard library's inlinable code); the system's libraries have none.
        let tool = URL(fileURLWithPath: executable).resolvingSymlinksInPath().path
        if let symbolizer {
            for object in graph.objects where URL(fileURLWithPath: object).resolvingSymlinksInPath().path == tool {
                graph.resolveInlinedFrames(
                    in: object, symbolize: symbolizer.frames(in:at:), demangle: SwiftDemangler.frameName)
            }
        }
        let stacks = graph.foldedStacks()
        let file = FlameFiles.file(of: cell.id, inRunAt: runDirectory)
        try FileSystem.makeDirectory(file.deletingLastPathComponent())
        try Data(FoldedStacks.text(stacks).utf8).write(to: file)
    }

    /// The budgets' decision at a look at a running child: stop it once it is over its time budget, or resident
    /// over the memory budget.
    static func decide(
        _ look: ChildSupervisor.Look, timeBudget: Double, fixture: Bool, memoryBudget: Int64, resident: Int64?
    ) -> ChildSupervisor.Decision {
        if look.elapsedSeconds > timeBudget { return .stop(.timeBudget(seconds: timeBudget, fixture: fixture)) }
        if let resident, resident > memoryBudget {
            return .stop(.memoryBudget(limit: memoryBudget, resident: resident))
        }
        return .keepWatching
    }

    /// The cell's result from what its child left: its metrics, or why it did not finish (DNF) or failed (error).
    static func result(
        of outcome: ChildSupervisor.Outcome, crashMessage: String?, killedAtLimit: Int64?, cell: PlannedCell
    ) -> CellResult {
        var result = CellResult(cell.id, status: .ok)
        result.process = ProcessUsage(
            wallSeconds: outcome.wallSeconds, userCPUSeconds: seconds(outcome.usage.ru_utime),
            systemCPUSeconds: seconds(outcome.usage.ru_stime), peakRSSBytes: Int64(outcome.usage.ru_maxrss) * 1024)
        let recordsDone = outcome.progress
        if let limit = killedAtLimit {
            result.status = .dnf
            result.reason =
                "\(CellResult.killedAtMemoryLimit) of \(Quantity.formatBytes(limit)) (page cache included), as "
                + "jetsam kills an app over its limit" + (recordsDone.map { ", after \($0) records" } ?? "")
        } else if let overBudget = outcome.stopped {
            result.status = .dnf
            result.reason = overBudget.description + (recordsDone.map { " after \($0) records" } ?? "")
        } else if case .signaled(let signal) = outcome.ending, signalsFromOutside.contains(signal) {
            result.status = .dnf
            result.reason = "stopped from outside the run by signal \(signal) (\(String(cString: strsignal(signal))))"
            result.interrupted = true
        } else if case .signaled(let signal) = outcome.ending {
            result.status = .dnf
            result.reason =
                "crashed with signal \(signal) (\(String(cString: strsignal(signal))))"
                + (crashMessage.map { ": \($0)" } ?? "")
        } else if let error = outcome.error {
            result.status = .error
            result.reason = error
        } else if case .exited(let code) = outcome.ending, code != 0 || outcome.reply == nil {
            result.status = .dnf
            result.reason = "exited with status \(code) without a report" + (crashMessage.map { ": \($0)" } ?? "")
        } else if case .cell(let metrics) = outcome.reply {
            result.metrics = metrics
        }
        return result
    }

    /// Signals a process does not raise by crashing: someone stopped it (the run's own budget kills are
    /// `overBudget`).
    ///
    /// Interrupting a run with Ctrl-C or a kill of its process group stops the cell first, and the run records it
    /// before it stops too.
    static let signalsFromOutside: Set<Int32> = [SIGINT, SIGTERM, SIGHUP, SIGKILL]

    private static func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
}
