import Foundation

// Kills: a writer killed with SIGKILL at a random moment; the page cache survives.
extension CrashCampaign {
    func kills(_ kind: StoreKind) throws -> CrashSummary {
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
                return look.elapsedSeconds < Self.childTimeoutSeconds ? .keepWatching : .stop(.neverOpened)
            }
            let now = monotonicNanoseconds()
            let at = killAt ?? now + delay
            killAt = at
            return now < at
                ? .lookAgainWithin(milliseconds: Int32(max(1, (at - now) / 1_000_000))) : .stop(.plannedKill)
        }
        guard let committed = writer.progress, writer.stopped != .neverOpened else {
            return .failed("the writer did not open the store: \(writer.error ?? "")")
        }
        if case .exited = writer.ending {
            return .failed("the writer stopped before the kill: \(writer.error ?? "")")
        }
        return .killed(committed: committed)
    }
}
