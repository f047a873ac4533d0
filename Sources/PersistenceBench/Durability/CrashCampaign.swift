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
        /// The records the stores hold and the transactions write (`--shape`); nil for items.
        package var shape: RecordShape?

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

        /// Throws, naming the option (`crash`'s), when a count is negative, nothing is checked, the crashes in a row
        /// have nothing to start from, or one of `stores` has no promise `crash` can check.
        package func validate(stores: [StoreKind] = []) throws {
            for kind in stores where !kind.isCrashChecked {
                guard kind.promise == .nothing else {
                    // A store with a promise but no integrity check to run after each crash.
                    throw BadInput(
                        "\(kind.name) has no integrity check for `crash` to run (its type does not conform to "
                            + "IntegrityCheckingStore: checkIntegrity() and storeFiles(in:kind:)): its promise, "
                            + "\(kind.promise.summary), goes unchecked")
                }
                throw BadInput("\(kind.name) promises nothing to check: \(kind.promise.summary)")
            }
            for (option, value) in [
                ("kills", kills), ("power-loss", powerLossStates), ("faults", faults), ("corruptions", corruptions),
            ] {
                try OptionBounds.count(value, option: "--\(option)", in: OptionBounds.crashTrials)
            }
            guard kills + powerLossStates + faults + corruptions > 0 else {
                throw BadInput("nothing to check: --kills, --power-loss, --faults and --corruptions are all 0")
            }
            guard crashes == 1 || crashes == 2 else {
                throw BadInput("invalid --crashes \(crashes): 1 or 2 crashes in a row")
            }
            guard crashes == 1 || powerLossStates > 0 else {
                throw BadInput("--crashes 2 needs --power-loss N: the two-crash states start from power-loss states")
            }
            try OptionBounds.count(transactions, option: "--transactions", in: OptionBounds.transactions)
            try OptionBounds.count(
                maximumKillDelayMilliseconds, option: "--max-delay", in: OptionBounds.killDelayMilliseconds,
                unit: "milliseconds, ")
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
}
