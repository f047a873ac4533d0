import Foundation

// Children: the crash jobs a campaign starts, and the checks that read their stores back.
extension CrashCampaign {
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
            directory: directory.path, transactions: transactions, committed: committed, continuation: continuation,
            shape: configuration.shape)
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
            look.elapsedSeconds > Self.childTimeoutSeconds ? .stop(.timedOut) : .keepWatching
        }
        let failure =
            outcome.stopped != nil
            ? "timed out after \(Int(Self.childTimeoutSeconds)) s" : outcome.error ?? supervisor.output
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
        guard case .crash(let verdict?, let openSeconds) = result.outcome.reply else {
            throw BenchError("verifying \(kind.name) failed: \(result.failure)")
        }
        return (verdict, openSeconds)
    }
}
