import Foundation

/// Two crashes in a row: what a crash leaves for the next crash to find.
///
/// A single cut checks that a store recovers; it cannot see what the recovery leaves behind. A slot it fell back
/// from, a log tail it did not replay, a file it half made may be read again by the open after a second crash,
/// once a successor has written over or beside them. File-system crash checkers (ALICE, CrashMonkey) check
/// sequences and crashes during recovery for this reason.
extension CrashCampaign {
    /// Second cuts per first-crash state: power cuts of the successor's recorded writes (up to
    /// `recoveryCutsPerState` of them inside its open, where the recovery writes), and kills.
    static let secondCutsPerState = 10
    static let recoveryCutsPerState = 3
    static let killsPerState = 2

    /// The directory a first-crash state is built in, kept while its second cuts are made from copies of it.
    private var firstCrash: URL { work.appendingPathComponent("first") }

    /// The two-crash check: `powerLossStates` states, each a power-loss state of the recorded writer (a quarter
    /// of the first states from the writer that creates the store), reopened by a successor that commits a
    /// seeded 1…`transactions` further transactions, and cut again.
    ///
    /// Every state is verified as a single one is, against the first writer's transactions up to the state the first
    /// reopen found, then the successor's.
    func twoCrashes(_ kind: StoreKind, log: WriteLog, creation: WriteLog?) throws -> CrashSummary {
        var summary = CrashSummary(store: kind, check: .twoCrashes)
        (summary.newStoreStates, summary.firstStates, summary.recoveryCuts, summary.killCuts) = (0, 0, 0, 0)
        let total = configuration.powerLossStates
        let firstStates = (total + Self.secondCutsPerState - 1) / Self.secondCutsPerState
        let newStore = creation == nil || firstStates < 2 ? 0 : max(1, firstStates / 4)
        let sources = [
            (log: log, limit: firstStates - newStore, base: base, scale: configuration.scale, name: ""),
            (
                log: creation ?? WriteLog(operations: []), limit: newStore, base: emptyBase, scale: 0,
                name: "new store: "
            ),
        ]
        var rng = SplitMix64(seed: configuration.seed, stream: .crashStates, index: 4)
        var reopen: [Double] = []
        var sequence = 0
        for source in sources where source.limit > 0 {
            let states = CrashStates(log: source.log, newFiles: configuration.newFiles)
            // Other first states than the single check's, from the same log: half of them with one pending page
            // lost and the rest kept (a commit whose last write landed while one before it did not: what a
            // recovery must throw away), half as the single check draws them.
            let torn = states.states(limit: (source.limit + 1) / 2, seed: configuration.seed &+ 1, family: .allButOne)
            let drawn = states.states(limit: source.limit - torn.count, seed: configuration.seed &+ 1)
            for first in torn + drawn {
                let remaining = total - summary.trials
                guard remaining > 0 else { break }
                sequence += 1
                summary.firstStates? += 1
                let name = "\(source.name)first \(first.label), \(first.committed) committed"
                let recovered = try reopenFirst(first, of: states, from: source.base, kind, scale: source.scale)
                guard let found = recovered.found, recovered.outcome == .intact || recovered.outcome == .lost else {
                    // Broken by the first cut alone: the single check's finding, and no state to go on from.
                    summary.add(recovered, trial: name)
                    if !source.name.isEmpty { summary.newStoreStates? += 1 }
                    continue
                }
                // Every other successor first makes again what the first crash cut off.
                let continuation = CrashJob.Continuation(after: found, run: sequence, retrying: sequence % 2 == 1)
                let cuts = min(Self.secondCutsPerState, remaining)
                var second = SecondCuts(
                    kind: kind, name: name, scale: source.scale, continuation: continuation,
                    firstCommitted: first.committed, newStore: !source.name.isEmpty)
                try powerCuts(&second, count: cuts - min(Self.killsPerState, cuts / 2), rng: &rng, into: &summary)
                try kills(&second, count: cuts - second.done, rng: &rng, into: &summary)
                reopen += second.reopen
                if sequence % 5 == 0 {
                    progress("\(kind.name): \(summary.trials)/\(total) two-crash states, \(summary.broken) broken")
                }
            }
        }
        progress(
            "\(kind.name): \(summary.trials) two-crash states from \(summary.firstStates ?? 0) first cuts "
                + "(\(summary.recoveryCuts ?? 0) second cuts during the recovery, \(summary.killCuts ?? 0) kills), "
                + "\(summary.broken) broken")
        summary.setReopen(reopen)
        return summary
    }

    /// The first crash's state `first` made from `base` (kept in `firstCrash` for the second cuts) and reopened in a
    /// copy in `store`: what its recovery found.
    private func reopenFirst(
        _ first: CrashStates.State, of states: CrashStates, from base: URL, _ kind: StoreKind, scale: Int
    ) throws -> CrashVerdict {
        try FileSystem.remove(firstCrash)
        try FileSystem.copyForCell(from: base, to: firstCrash)
        try states.materialize(first, in: firstCrash)
        try FileSystem.remove(store)
        try FileSystem.copyForCell(from: firstCrash, to: store)
        return try verify(kind, directory: store, run: 0, committed: first.committed, scale: scale).0
    }

    /// The second cuts of one first-crash state.
    private struct SecondCuts {
        let kind: StoreKind
        /// The first cut, for the trials' names.
        let name: String
        let scale: Int
        let continuation: CrashJob.Continuation
        /// Transactions whose commit returned before the first cut.
        let firstCommitted: Int
        /// Whether the first cut was of a store being created.
        let newStore: Bool
        var done = 0
        var reopen: [Double] = []
    }

    /// `count` power cuts of a recorded successor on the first-crash state: up to `recoveryCutsPerState` inside
    /// its open (where a recovery writes, if it writes anything), the rest after its open reported.
    private func powerCuts(
        _ second: inout SecondCuts, count: Int, rng: inout SplitMix64, into summary: inout CrashSummary
    ) throws {
        guard count > 0 else { return }
        let transactions = 1 + Int(rng.below(UInt64(configuration.transactions)))
        let log: WriteLog
        do {
            log = try record(
                second.kind, from: firstCrash, scale: second.scale, transactions: transactions,
                continuation: second.continuation)
        } catch {
            summary.addBrokenTrial(second.name + "; the successor", "\(error)")
            second.done += 1
            return
        }
        let states = CrashStates(log: log, newFiles: configuration.newFiles)
        let reports = log.operations.indices.filter { if case .committed = log.operations[$0] { true } else { false } }
        let opened = reports.first ?? log.operations.count
        let firstCommit = reports.count > 1 ? reports[1] : log.operations.count
        let seed = rng.next()
        let recovery = states.states(limit: min(Self.recoveryCutsPerState, count), seed: seed, within: 0...opened)
        // Half of the rest inside the successor's first commit, where it overwrites what the recovery left (a slot
        // it fell back from, a log's tail, a half-made file), its writes kept in call order up to a point (the
        // rows written and the slot not); then the later commits.
        let rest = count - recovery.count
        let first = states.states(
            limit: rest / 2, seed: seed, within: (opened + 1)...firstCommit, family: .prefixes)
        let later = states.states(limit: rest - first.count, seed: seed, within: (firstCommit + 1)...Int.max)
        let after = first + later
        for (state, duringRecovery) in recovery.map({ ($0, true) }) + after.map({ ($0, false) }) {
            try FileSystem.remove(store)
            try FileSystem.copyForCell(from: firstCrash, to: store)
            try states.materialize(state, in: store)
            // Inside the open, the first crash's in-flight transaction may still go either way; once the open
            // reported, the state it found is the base of every later commit.
            let committed =
                duringRecovery ? min(second.firstCommitted, second.continuation.after) : state.committed
            let (verdict, seconds) = try verify(
                second.kind, directory: store, run: 0, committed: committed, scale: second.scale,
                continuation: second.continuation)
            if let seconds { second.reopen.append(seconds) }
            let when = duringRecovery ? "during the successor's open" : "after \(transactions) more transactions began"
            summary.add(verdict, trial: "\(second.name); then \(when): \(state.label), \(committed) committed")
            if duringRecovery { summary.recoveryCuts? += 1 }
            if second.newStore { summary.newStoreStates? += 1 }
            second.done += 1
        }
    }

    /// `count` kills of a successor on the first-crash state, each a seeded 0…`maximumKillDelayMilliseconds`
    /// after it reported its open.
    private func kills(
        _ second: inout SecondCuts, count: Int, rng: inout SplitMix64, into summary: inout CrashSummary
    ) throws {
        for _ in 0..<max(0, count) {
            try FileSystem.remove(store)
            try FileSystem.copyForCell(from: firstCrash, to: store)
            let job = crashJob(
                .write, kind: second.kind, directory: store, run: 0, scale: second.scale,
                continuation: second.continuation)
            let delay = UInt64(rng.below(UInt64(configuration.maximumKillDelayMilliseconds) + 1)) * 1_000_000
            let name = "\(second.name); then a kill after \(delay / 1_000_000) ms"
            second.done += 1
            summary.killCuts? += 1
            if second.newStore { summary.newStoreStates? += 1 }
            switch try kill(job, afterNanoseconds: delay) {
            case .failed(let problem):
                summary.addBrokenTrial(name, problem)
            case .killed(let reported):
                let committed = reported
                let (verdict, seconds) = try verify(
                    second.kind, directory: store, run: 0, committed: committed, scale: second.scale,
                    continuation: second.continuation)
                if let seconds { second.reopen.append(seconds) }
                summary.add(verdict, trial: "\(name), \(committed) committed")
            }
        }
    }
}
