import Foundation

/// What one check found for one store: `persistbench crash`'s result rows (crash.json).
package struct CrashSummary: Codable, Sendable {
    package enum Check: String, Codable, Sendable, CaseIterable {
        /// The writer is killed with SIGKILL: the page cache survives.
        case kill
        /// Crash states a power cut may leave, rebuilt from the writer's recorded writes and flushes.
        case powerLoss = "power-loss"
        /// A power-loss state reopened (its recovery run), written on by a successor, and cut again: by power loss
        /// (during the successor's open and recovery, or after it), or by a kill (`CrashCampaign+Sequences`).
        case twoCrashes = "two-crashes"
        /// A write or flush fails (ENOSPC, EIO) in the writer.
        case fault
        /// A closed store's file has a byte flipped or is cut short; the reopened store must detect it or still
        /// answer right. Measured, not promised: its outcomes never count as broken.
        case corruption
    }

    package var store: String
    package var check: Check
    package var promise: DurabilityPromise
    /// Kills, crash states or injected faults.
    package var trials = 0
    /// Committed transactions the trials checked (the sum of each trial's committed count).
    package var transactionsVerified = 0
    package var intact = 0
    /// Trials that found an earlier committed state, and the committed transactions they lost in all.
    package var lost = 0
    package var lostTransactions = 0
    package var torn = 0
    package var corrupt = 0
    /// Trials whose outcome the store's promise does not allow.
    package var broken = 0
    package var reopenMedianSeconds: Double?
    package var reopenMaxSeconds: Double?
    /// Faults: how many the writer reported as an error, and how many it absorbed (its run ended without one).
    package var faultsReported: Int?
    package var faultsAbsorbed: Int?
    /// Corruptions: reopens that crashed or hung (the others are intact, torn or corrupt: harmless, silently
    /// wrong, detected).
    package var crashes: Int?
    package var hangs: Int?
    /// Power loss: how many of the states were cut from a writer that created the store (nil in older files).
    package var newStoreStates: Int?
    /// Two crashes: the first-crash states the sequences start from, and how many second cuts fell inside the
    /// successor's open (its recovery) and how many were kills; the rest are power cuts after its open.
    package var firstStates: Int?
    package var recoveryCuts: Int?
    package var killCuts: Int?
    /// The first few broken trials, described.
    package var examples: [String] = []

    init(store: StoreKind, check: Check) {
        self.store = store.name
        self.check = check
        promise = store.promise
    }

    /// Whether `verdict` is what the promise allows for this check.
    func allows(_ verdict: CrashVerdict) -> Bool {
        switch (check, promise) {
        case (_, .nothing), (.corruption, _): true
        case (.powerLoss, .committedPrefix), (.twoCrashes, .committedPrefix):
            verdict.outcome == .intact || verdict.outcome == .lost
        // Measured, not promised: what a power cut leaves of a store that never flushed.
        case (.powerLoss, .survivesKills), (.twoCrashes, .survivesKills): true
        default: verdict.outcome == .intact
        }
    }

    mutating func add(_ verdict: CrashVerdict, trial: String) {
        trials += 1
        transactionsVerified += verdict.committed
        switch verdict.outcome {
        case .intact: intact += 1
        case .lost:
            lost += 1
            lostTransactions += verdict.lostTransactions
        case .torn: torn += 1
        case .corrupt: corrupt += 1
        }
        if !allows(verdict) { addBroken("\(trial): \(verdict.outcome.rawValue)", verdict.problem) }
    }

    /// The median and the longest of the trials' reopen times.
    mutating func setReopen(_ seconds: [Double]) {
        let sorted = seconds.sorted()
        reopenMedianSeconds = sorted.isEmpty ? nil : sorted[sorted.count / 2]
        reopenMaxSeconds = sorted.last
    }

    mutating func addBroken(_ what: String, _ problem: String?) {
        broken += 1
        addExample(what + (problem.map { " (\($0))" } ?? ""))
    }

    /// A trial that ended without a verdict (the writer hung, crashed or failed) and broke the promise.
    mutating func addBrokenTrial(_ what: String, _ problem: String?) {
        trials += 1
        addBroken(what, problem)
    }

    /// Keeps the first few examples.
    mutating func addExample(_ example: String) {
        if examples.count < 5 { examples.append(example) }
    }
}

/// `persistbench crash`: kills a writer, rebuilds power-loss crash states, injects faults, and verifies what each
/// leaves in a fresh process (`CrashExecution`).
package final class CrashCampaign {
    package struct Configuration: Sendable {
        package var scale: Int
        package var seed: UInt64
        package var kills: Int
        /// Crash states per store for the power-loss check (0: skip it).
        package var powerLossStates: Int
        /// Faults per store (0: skip the check).
        package var faults: Int
        /// Byte flips and truncations of the closed store per store (0: skip the check).
        package var corruptions: Int
        /// Transactions the recorded (power-loss, fault) writer commits.
        package var transactions: Int
        /// A kill comes a seeded 0…this many milliseconds after the writer opened the store.
        package var maximumKillDelayMilliseconds: Int
        /// When a new name survives a power cut in the crash states (`NewFileRule`).
        package var newFiles: NewFileRule
        /// Crashes in a row: 1, or 2 to also cut `powerLossStates` two-crash states.
        package var crashes: Int

        package init(
            scale: Int, seed: UInt64, kills: Int, powerLossStates: Int, faults: Int, corruptions: Int = 0,
            transactions: Int, maximumKillDelayMilliseconds: Int, newFiles: NewFileRule = .posix, crashes: Int = 1
        ) {
            self.newFiles = newFiles
            self.crashes = crashes
            self.corruptions = corruptions
            self.scale = scale
            self.seed = seed
            self.kills = kills
            self.powerLossStates = powerLossStates
            self.faults = faults
            self.transactions = transactions
            self.maximumKillDelayMilliseconds = maximumKillDelayMilliseconds
        }
    }

    /// A child that ran longer than this is counted as hung and killed.
    static let childTimeoutSeconds = 120.0
    /// How long a wait for a writer's next commit lasts before its exit and timeout are looked at again: short, as
    /// a kill's delay is counted in milliseconds.
    static let pollMilliseconds: Int32 = 20

    let configuration: Configuration
    let executable: String
    let recorder: String?
    let work: URL
    let progress: (String) -> Void

    /// - Parameters:
    ///   - executable: this tool, whose hidden `_child` command the children run.
    ///   - recorder: libWriteRecorder.so, for the power-loss and fault checks.
    ///   - work: a scratch directory, emptied first.
    package init(
        configuration: Configuration, executable: String, recorder: String?, work: URL,
        progress: @escaping (String) -> Void
    ) {
        self.configuration = configuration
        self.executable = executable
        self.recorder = recorder
        self.work = work
        self.progress = progress
    }

    var base: URL { work.appendingPathComponent("base") }
    /// An empty store directory: where the power-loss check's second writer creates its store.
    var emptyBase: URL { work.appendingPathComponent("empty") }
    var store: URL { work.appendingPathComponent("store") }
    var recordLog: URL { work.appendingPathComponent("writes.log") }

    /// Runs the configured checks on `kind`.
    package func run(_ kind: StoreKind) throws -> [CrashSummary] {
        try FileSystem.remove(work)
        try FileSystem.makeDirectory(base)
        defer { try? FileSystem.remove(work) }
        let prepared = try child(.prepare, kind: kind, directory: base)
        guard case .exited(0) = prepared.outcome.ending else {
            throw BenchError("loading \(kind.name)'s \(configuration.scale) items failed: \(prepared.failure)")
        }
        var summaries: [CrashSummary] = []
        if configuration.kills > 0 { summaries.append(try kills(kind)) }
        var log: WriteLog?
        if configuration.powerLossStates > 0 || configuration.faults > 0 {
            log = try record(kind)
        }
        if let log, configuration.powerLossStates > 0 {
            // A writer that creates the store, for a quarter of the states: recorded once, for both checks.
            try FileSystem.makeDirectory(emptyBase)
            let creation = configuration.powerLossStates >= 2 ? try record(kind, from: emptyBase, scale: 0) : nil
            summaries.append(try powerLoss(kind, log: log, creation: creation))
            if configuration.crashes >= 2 { summaries.append(try twoCrashes(kind, log: log, creation: creation)) }
        }
        if let log, configuration.faults > 0 { summaries.append(try faults(kind, log: log)) }
        if configuration.corruptions > 0 { summaries.append(try corruptions(kind)) }
        return summaries
    }

    // MARK: Kills

    private func kills(_ kind: StoreKind) throws -> CrashSummary {
        var summary = CrashSummary(store: kind, check: .kill)
        var reopen: [Double] = []
        var rng = SplitMix64(seed: configuration.seed, stream: .crashStates, index: 1)
        for trial in 1...configuration.kills {
            try FileSystem.remove(store)
            try FileSystem.copyForCell(from: base, to: store)
            let job = crashJob(.write, kind: kind, directory: store, run: trial)
            let delay = UInt64(rng.below(UInt64(configuration.maximumKillDelayMilliseconds) + 1)) * 1_000_000
            let committed: Int
            switch try kill(job, afterNanoseconds: delay) {
            case .killed(let reported): committed = reported
            case .failed(let problem):
                summary.addBrokenTrial("kill \(trial)", problem)
                continue
            }
            let (verdict, seconds) = try verify(kind, directory: store, run: trial, committed: committed)
            if let seconds { reopen.append(seconds) }
            summary.add(verdict, trial: "kill \(trial) after \(delay / 1_000_000) ms, \(committed) committed")
            if trial % 20 == 0 || trial == configuration.kills {
                progress("\(kind.name): \(trial)/\(configuration.kills) kills, \(summary.broken) broken")
            }
        }
        summary.setReopen(reopen)
        return summary
    }

    /// How a writer meant to be killed ended.
    enum KillOutcome {
        /// Killed, after reporting this many committed transactions.
        case killed(committed: Int)
        /// Not killed: it never reported its open, or it stopped first; why.
        case failed(String)
    }

    /// Runs the writer `job` and kills it with SIGKILL `delay` nanoseconds after it reported its open.
    func kill(_ job: CrashJob, afterNanoseconds delay: UInt64) throws -> KillOutcome {
        // Given up on if it never says it opened the store.
        var killAt: UInt64?
        let writer = try supervisor.run(.crash(job)) { look in
            guard look.progress != nil else {
                return look.elapsedSeconds < Self.childTimeoutSeconds ? .keepWatching : .stop("did not open")
            }
            let now = monotonicNanoseconds()
            let at = killAt ?? now + delay
            killAt = at
            return now < at ? .lookAgainWithin(milliseconds: Int32(max(1, (at - now) / 1_000_000))) : .stop("kill")
        }
        guard let committed = writer.progress, writer.stopped != "did not open" else {
            return .failed("the writer did not open the store: \(writer.reply?.error ?? "")")
        }
        if case .exited = writer.ending {
            return .failed("the writer stopped before the kill: \(writer.reply?.error ?? "")")
        }
        return .killed(committed: committed)
    }

    // MARK: Power loss

    /// Runs a writer of `transactions` commits under libWriteRecorder, on a copy of `base` (a store of `scale`
    /// items, or an empty directory: a store created by the writer), and returns its log.
    func record(
        _ kind: StoreKind, from base: URL? = nil, scale: Int? = nil, transactions: Int? = nil,
        continuation: CrashJob.Continuation? = nil
    ) throws -> WriteLog {
        try FileSystem.remove(store)
        try FileSystem.copyForCell(from: base ?? self.base, to: store)
        let job = crashJob(
            .write, kind: kind, directory: store, run: 0, transactions: transactions ?? configuration.transactions,
            scale: scale, continuation: continuation)
        let result = try child(job, environment: try recording(into: recordLog, fault: nil))
        guard case .exited(0) = result.outcome.ending else {
            throw BenchError("the recorded writer of \(kind.name) failed: \(result.failure)")
        }
        return try WriteLog(contentsOf: recordLog, directory: store.path)
    }

    func recording(into log: URL, fault: String?) throws -> [String] {
        guard let recorder else {
            throw BenchError(
                "the power-loss and fault checks need libWriteRecorder.so beside persistbench; build it with "
                    + "`swift build -c release --product WriteRecorder`")
        }
        return [
            "LD_PRELOAD=\(recorder)", "PB_RECORD_DIR=\(store.path)", "PB_RECORD_LOG=\(log.path)",
            "PB_RECORD_MARKER_FD=\(ProgressChannel.descriptor)",
        ] + (fault.map { ["PB_FAULT=\($0)"] } ?? [])
    }

    /// The power-loss check: crash states of the recorded writer on the fixture and, a quarter of them (at least
    /// one), of a writer that creates the store in an empty directory and commits the same number of
    /// transactions: states cut while the store's files and directories are being made.
    private func powerLoss(_ kind: StoreKind, log: WriteLog, creation: WriteLog?) throws -> CrashSummary {
        var summary = CrashSummary(store: kind, check: .powerLoss)
        summary.newStoreStates = 0
        let total = configuration.powerLossStates
        let newStore = creation == nil ? 0 : max(1, total / 4)
        let sources = [
            (
                states: CrashStates(log: log, newFiles: configuration.newFiles), limit: total - newStore,
                base: base, scale: configuration.scale, name: ""
            ),
            (
                states: CrashStates(log: creation ?? WriteLog(operations: []), newFiles: configuration.newFiles),
                limit: newStore,
                base: emptyBase, scale: 0, name: "new store: "
            ),
        ]
        var reopen: [Double] = []
        var done = 0
        for source in sources where source.limit > 0 {
            for state in source.states.states(limit: source.limit, seed: configuration.seed) {
                try FileSystem.remove(store)
                try FileSystem.copyForCell(from: source.base, to: store)
                try source.states.materialize(state, in: store)
                let (verdict, seconds) = try verify(
                    kind, directory: store, run: 0, committed: state.committed, scale: source.scale)
                if let seconds { reopen.append(seconds) }
                summary.add(verdict, trial: source.name + state.label + ", \(state.committed) committed")
                if source.scale == 0 { summary.newStoreStates? += 1 }
                done += 1
                if done % 50 == 0 {
                    progress("\(kind.name): \(done)/\(total) power-loss states, \(summary.broken) broken")
                }
            }
        }
        progress(
            "\(kind.name): \(done) power-loss states (\(summary.newStoreStates ?? 0) of a new store), \(summary.broken) broken"
        )
        summary.setReopen(reopen)
        return summary
    }

    // MARK: Faults

    /// Fails a seeded write or flush (ENOSPC or EIO, alternately) of a writer like the recorded one, then checks
    /// that the writer reported it or absorbed it without a crash or a hang, and that the store reopens with
    /// every transaction committed before the fault.
    private func faults(_ kind: StoreKind, log: WriteLog) throws -> CrashSummary {
        var summary = CrashSummary(store: kind, check: .fault)
        summary.faultsReported = 0
        summary.faultsAbsorbed = 0
        let counts = log.writesAndFlushes
        var rng = SplitMix64(seed: configuration.seed, stream: .crashStates, index: 2)
        for trial in 1...configuration.faults {
            // Writes and flushes alternately; only flushes for a writer that makes no write calls (`lmdb+writemap`
            // writes through its map, and its msyncs are its flushes).
            let isWrite = (trial % 2 == 1 && counts.writes > 0) || counts.flushes == 0
            let code = (trial / 2) % 2 == 0 ? ENOSPC : EIO
            let at = 1 + Int(rng.below(UInt64(max(1, isWrite ? counts.writes : counts.flushes))))
            let fault = "\(isWrite ? "write" : "flush"):\(at):\(code)"
            let name = "fault \(trial) (\(isWrite ? "write" : "flush") \(at), \(code == ENOSPC ? "ENOSPC" : "EIO"))"
            try FileSystem.remove(store)
            try FileSystem.copyForCell(from: base, to: store)
            let job = crashJob(.write, kind: kind, directory: store, run: 0, transactions: configuration.transactions)
            let faultLog = work.appendingPathComponent("fault.log")
            let result = try child(job, environment: try recording(into: faultLog, fault: fault))
            if result.timedOut {
                summary.addBrokenTrial(name, "the writer hung: killed after \(Int(Self.childTimeoutSeconds)) s")
                continue
            }
            switch result.outcome.ending {
            case .signaled(let signal):
                summary.addBrokenTrial(name, "the writer crashed with signal \(signal)")
                continue
            case .exited(0):
                // Where the fault fell: after the last commit (the close, a checkpoint) a store may absorb it, since
                // nothing it promised depends on it; inside a transaction, a commit that returned despite a failed
                // write broke the promise, and despite a failed flush too, unless the store promises only a
                // committed prefix: its commits do not flush, and a failed flush of a checkpoint (which SQLite does
                // not report to the committer) can only cost commits it never promised to keep.
                let operations = try WriteLog(contentsOf: faultLog, directory: store.path).operations
                guard let faultIndex = operations.firstIndex(of: .fault) else {
                    // Not a trial: the writer made fewer calls than the recorded one.
                    summary.addExample("\(name): not reached (the writer made fewer calls)")
                    continue
                }
                let lastCommit = operations.lastIndex { if case .committed = $0 { true } else { false } } ?? 0
                if faultIndex < lastCommit, isWrite || kind.promise == .everyCommit {
                    summary.addBrokenTrial(name, "a commit returned after the fault, and the writer reported no error")
                    continue
                }
                summary.faultsAbsorbed? += 1
            case .exited:
                guard result.outcome.reply?.error != nil else {
                    summary.addBrokenTrial(name, "the writer failed without an error: \(result.failure)")
                    continue
                }
                summary.faultsReported? += 1
            }
            let (verdict, _) = try verify(kind, directory: store, run: 0, committed: result.outcome.progress ?? 0)
            summary.add(verdict, trial: name)
        }
        return summary
    }

    // MARK: Corruption

    /// Damages a copy of the closed store: a seeded byte XORed with a nonzero value (four cases in five) or a file
    /// cut short; half the flips at a byte drawn over all the files' bytes (most land in the big files), half in a
    /// file drawn first (small files, headers and metadata, get their share). Then reopens it in a fresh process:
    /// detected (an error), harmless (every answer right), silently wrong, crashed or hung.
    private func corruptions(_ kind: StoreKind) throws -> CrashSummary {
        var summary = CrashSummary(store: kind, check: .corruption)
        summary.crashes = 0
        summary.hangs = 0
        let files = try FileManager.default.subpathsOfDirectory(atPath: base.path).sorted().compactMap {
            path -> (path: String, size: Int)? in
            let attributes = try FileManager.default.attributesOfItem(atPath: base.appendingPathComponent(path).path)
            guard attributes[.type] as? FileAttributeType == .typeRegular,
                let size = (attributes[.size] as? NSNumber)?.intValue, size > 0
            else { return nil }
            return (path, size)
        }
        guard !files.isEmpty else { throw BenchError("\(kind.name) left no files to damage") }
        let total = files.reduce(0) { $0 + $1.size }
        var rng = SplitMix64(seed: configuration.seed, stream: .crashStates, index: 3)
        for trial in 1...configuration.corruptions {
            try FileSystem.remove(store)
            try FileSystem.copyForCell(from: base, to: store)
            let damage: String
            if rng.below(5) == 0 {
                let file = files[Int(rng.below(UInt64(files.count)))]
                let length = Int(rng.below(UInt64(file.size)))
                guard truncate(store.appendingPathComponent(file.path).path, off_t(length)) == 0 else {
                    throw BenchError.system("truncating \(file.path)")
                }
                damage = "\(file.path) cut to \(length) of \(file.size) bytes"
            } else {
                var file = files[0]
                var offset: Int
                if rng.below(2) == 0 {
                    offset = Int(rng.below(UInt64(total)))
                    for candidate in files {
                        file = candidate
                        if offset < candidate.size { break }
                        offset -= candidate.size
                    }
                } else {
                    file = files[Int(rng.below(UInt64(files.count)))]
                    offset = Int(rng.below(UInt64(file.size)))
                }
                let mask = UInt8(1 + rng.below(255))
                let path = store.appendingPathComponent(file.path).path
                let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
                try handle.seek(toOffset: UInt64(offset))
                let byte = try handle.read(upToCount: 1)?.first ?? 0
                try handle.seek(toOffset: UInt64(offset))
                try handle.write(contentsOf: [byte ^ mask])
                try handle.close()
                damage = "\(file.path) byte \(offset) XOR \(mask)"
            }
            let job = crashJob(.verify, kind: kind, directory: store, run: 0, committed: 0)
            let result = try child(job, environment: [])
            if result.timedOut {
                summary.trials += 1
                summary.hangs? += 1
                summary.addExample("\(damage): the reopen hung")
            } else if case .signaled(let signal) = result.outcome.ending {
                summary.trials += 1
                summary.crashes? += 1
                // Crashes lead the examples: they are the cases to fix.
                summary.examples.insert("\(damage): the reopen crashed (signal \(signal))", at: 0)
                summary.examples = Array(summary.examples.prefix(5))
            } else if let verdict = result.outcome.reply?.verdict {
                summary.add(verdict, trial: damage)
                if verdict.outcome == .torn {
                    summary.addExample("\(damage): silently wrong (\(verdict.problem ?? ""))")
                }
            } else {
                throw BenchError("verifying \(kind.name) failed: \(result.failure)")
            }
            if trial % 100 == 0 || trial == configuration.corruptions {
                progress("\(kind.name): \(trial)/\(configuration.corruptions) corruptions")
            }
        }
        return summary
    }

    // MARK: Children

    /// Every child of the campaign: its request, reply and output in the scratch directory.
    var supervisor: ChildSupervisor {
        ChildSupervisor(executable: executable, directory: work, pollMilliseconds: Self.pollMilliseconds)
    }

    func crashJob(
        _ mode: CrashJob.Mode, kind: StoreKind, directory: URL, run: Int, transactions: Int? = nil, committed: Int = 0,
        scale: Int? = nil, continuation: CrashJob.Continuation? = nil
    ) -> CrashJob {
        CrashJob(
            mode: mode, store: kind.name, scale: scale ?? configuration.scale, seed: configuration.seed, run: run,
            directory: directory.path, transactions: transactions, committed: committed, continuation: continuation)
    }

    struct ChildResult {
        let outcome: ChildSupervisor.Outcome
        /// The child's error, or its output, for a message.
        let failure: String
        /// Whether it ran past `childTimeoutSeconds` and was killed.
        var timedOut: Bool { outcome.stopped != nil }
    }

    func child(_ mode: CrashJob.Mode, kind: StoreKind, directory: URL) throws -> ChildResult {
        try child(crashJob(mode, kind: kind, directory: directory, run: 0), environment: [])
    }

    /// Runs a child to its end (killed after `childTimeoutSeconds`).
    func child(_ job: CrashJob, environment: [String]) throws -> ChildResult {
        let supervisor = self.supervisor
        let outcome = try supervisor.run(.crash(job), environment: environment) { look in
            look.elapsedSeconds > Self.childTimeoutSeconds ? .stop("timed out") : .keepWatching
        }
        let failure =
            outcome.stopped != nil
            ? "timed out after \(Int(Self.childTimeoutSeconds)) s" : outcome.reply?.error ?? supervisor.output
        return ChildResult(outcome: outcome, failure: failure)
    }

    /// Reopens the store in `directory` in a fresh process and returns its verdict and reopen time.
    func verify(
        _ kind: StoreKind, directory: URL, run: Int, committed: Int, scale: Int? = nil,
        continuation: CrashJob.Continuation? = nil
    ) throws -> (CrashVerdict, Double?) {
        let job = crashJob(
            .verify, kind: kind, directory: directory, run: run, committed: committed, scale: scale,
            continuation: continuation)
        let result = try child(job, environment: [])
        if result.timedOut {
            return (CrashVerdict(outcome: .corrupt, committed: committed, problem: "the reopen hung"), nil)
        }
        if case .signaled(let signal) = result.outcome.ending {
            return (
                CrashVerdict(outcome: .corrupt, committed: committed, problem: "the reopen crashed (signal \(signal))"),
                nil
            )
        }
        guard let reply = result.outcome.reply, let verdict = reply.verdict else {
            throw BenchError("verifying \(kind.name) failed: \(result.failure)")
        }
        return (verdict, reply.openSeconds)
    }
}

/// What `persistbench crash` writes to crash.json: the machine, the configuration, a row per store and check.
package struct CrashResults: Codable, Sendable {
    package var environment: RunEnvironment
    package var scale: Int
    package var seed: UInt64
    package var kills: Int
    package var powerLossStates: Int
    package var faults: Int
    package var corruptions: Int?
    package var transactions: Int
    /// The rule the power-loss states were built under; nil in files written before it was a choice (ext4's).
    package var newFiles: NewFileRule?
    package var summaries: [CrashSummary] = []
    /// Stores whose check stopped with an error (a failed fixture load, a missing recorder), with the error.
    package var errors: [String: String] = [:]

    package init(environment: RunEnvironment, configuration: CrashCampaign.Configuration) {
        self.environment = environment
        scale = configuration.scale
        seed = configuration.seed
        kills = configuration.kills
        powerLossStates = configuration.powerLossStates
        faults = configuration.faults
        corruptions = configuration.corruptions
        transactions = configuration.transactions
        newFiles = configuration.powerLossStates > 0 ? configuration.newFiles : nil
    }

    /// Whether any store broke its promise or could not be checked.
    package var failed: Bool { summaries.contains { $0.broken > 0 } || !errors.isEmpty }

    package func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(self)
    }
}
