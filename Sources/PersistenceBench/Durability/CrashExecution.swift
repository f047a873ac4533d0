import Foundation

/// The child side of `persistbench crash` (`ChildExecution`).
enum CrashExecution {
    /// Runs `job`, sending a writer's commits on `progress`: a verifier's verdict and reopen time, nothing for the
    /// others.
    static func run(_ job: CrashJob, stores: [StoreKind], progress: ProgressChannel?) throws -> (
        CrashVerdict?, Double?
    ) {
        let kind = try ChildExecution.kind(named: job.store, in: stores)
        let directory = URL(fileURLWithPath: job.directory)
        switch job.mode {
        case .prepare:
            let context = WorkloadContext(
                scale: job.scale, seed: job.seed, batchSize: RunConfiguration.defaultBatchSize,
                stopwatch: Stopwatch(), progress: ProgressReporter())
            let workload: any Workload =
                job.shape.map { ShapedWorkload(.get, shape: $0) } ?? GetWorkload(distribution: .uniform)
            try CellExecution.loadFixture(of: workload, into: kind, at: directory, context: context)
            return (nil, nil)
        case .write:
            guard let progress else { throw BenchError("a crash check's writer needs its progress channel") }
            try write(job, kind: kind, at: directory, progress: progress)
            return (nil, nil)
        case .verify:
            let (verdict, seconds) = try verify(job, kind: kind, at: directory)
            return (verdict, seconds)
        }
    }

    private static func write(_ job: CrashJob, kind: StoreKind, at directory: URL, progress: ProgressChannel) throws {
        let store = try kind.open(directory)
        var plan = plan(for: job, transactions: 0)
        let first = job.continuation?.after ?? 0
        progress.send(first)
        var number = first
        while job.transactions.map({ number - first < $0 }) ?? true {
            let transaction = plan.next()
            try plan.apply(transaction, to: store)
            number += 1
            progress.send(number)
        }
        try store.close()
    }

    /// The job's plan with at least `count` transactions made: its own, or a first writer's up to the state the
    /// store recovered to and then the continuation's.
    private static func plan(for job: CrashJob, transactions count: Int) -> CrashPlan {
        guard let continuation = job.continuation else {
            return CrashPlan(scale: job.scale, seed: job.seed, run: job.run, transactions: count, shape: job.shape)
        }
        var plan = CrashPlan(
            scale: job.scale, seed: job.seed, run: job.run, transactions: continuation.after, shape: job.shape)
        plan.continuing(continuation.run, retrying: continuation.retrying)
        while plan.history.count < count { _ = plan.next() }
        return plan
    }

    private static func verify(_ job: CrashJob, kind: StoreKind, at directory: URL) throws -> (CrashVerdict, Double?) {
        let started = monotonicNanoseconds()
        let opened: any Store
        do {
            opened = try kind.open(directory)
        } catch {
            return (CrashVerdict(outcome: .corrupt, committed: job.committed, problem: "open: \(error)"), nil)
        }
        let openSeconds = secondsSince(started)
        guard let store = opened as? any IntegrityCheckingStore else {
            try opened.close()
            throw BenchError("\(kind.name) has no integrity check")
        }
        defer { try? store.close() }
        do {
            try store.checkIntegrity()
        } catch {
            return (CrashVerdict(outcome: .corrupt, committed: job.committed, problem: "\(error)"), openSeconds)
        }
        let plan = plan(for: job, transactions: job.committed + 1)
        do {
            if let shape = job.shape,
                let table = try (store as? any RecordStore)?.records(of: shape) as? any AttachmentTable,
                case let orphans = try table.orphanedFiles(), orphans > 0
            {
                return (
                    CrashVerdict(
                        outcome: .corrupt, committed: job.committed,
                        problem: "\(orphans) attachment files no row names survived the open"),
                    openSeconds
                )
            }
            return (try plan.verdict(for: store, committed: job.committed), openSeconds)
        } catch {
            return (CrashVerdict(outcome: .corrupt, committed: job.committed, problem: "read: \(error)"), openSeconds)
        }
    }
}
