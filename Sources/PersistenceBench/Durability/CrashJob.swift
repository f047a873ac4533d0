import Foundation

/// What a child process of `persistbench crash` is asked to do: written by the parent as JSON.
public struct CrashJob: Codable, Sendable {
    public enum Mode: String, Codable, Sendable {
        /// Load the `get` fixture (items 1…scale) into a new store and close it.
        case prepare
        /// Open the store, report 0 on descriptor 3, then commit the plan's transactions one by one, reporting
        /// each one's number after its commit returns; after `transactions` (if set), close and exit.
        case write
        /// Open the store (timed), check its integrity, and say which committed state it holds.
        case verify
    }

    public var mode: Mode
    public var store: String
    public var scale: Int
    public var seed: UInt64
    /// Which sequence of transactions (`CrashPlan`'s run).
    public var run: Int
    public var directory: String
    /// For `write`: how many transactions, or nil to write until killed.
    public var transactions: Int?
    /// For `verify`: how many transactions had committed (the last number the writer reported).
    public var committed: Int
    /// Where the child writes its `CrashReport`.
    public var reportPath: String

    public init(
        mode: Mode, store: String, scale: Int, seed: UInt64, run: Int, directory: String, transactions: Int? = nil,
        committed: Int = 0, reportPath: String
    ) {
        self.mode = mode
        self.store = store
        self.scale = scale
        self.seed = seed
        self.run = run
        self.directory = directory
        self.transactions = transactions
        self.committed = committed
        self.reportPath = reportPath
    }
}

/// What a crash child reports: a verdict and the reopen time (`verify`), or the error that stopped it.
public struct CrashReport: Codable, Sendable {
    public var verdict: CrashVerdict?
    public var openSeconds: Double?
    public var error: String?
}

/// The child side of `persistbench crash`.
public enum CrashExecution {
    /// The descriptor the writer reports committed transactions on (a pipe the parent reads).
    public static let reportDescriptor: Int32 = 3

    /// Runs `job` and writes its report. Returns false if the job failed (the report then holds the error).
    public static func run(_ job: CrashJob, stores: [StoreKind]) -> Bool {
        var report = CrashReport()
        do {
            guard let kind = stores.first(where: { $0.name == job.store }) else {
                throw BenchError("no store \(job.store)")
            }
            let directory = URL(fileURLWithPath: job.directory)
            switch job.mode {
            case .prepare:
                let context = WorkloadContext(
                    scale: job.scale, seed: job.seed, batchSize: RunConfiguration.defaultBatchSize,
                    stopwatch: Stopwatch(), progress: ProgressReporter())
                guard let workload = WorkloadCatalog.workload(named: "get") else { throw BenchError("no get workload") }
                try CellExecution.loadFixture(of: workload, into: kind, at: directory, context: context)
            case .write:
                try write(job, kind: kind, at: directory)
            case .verify:
                (report.verdict, report.openSeconds) = try verify(job, kind: kind, at: directory)
            }
        } catch {
            report.error = "\(error)"
        }
        return FileSystem.writeReport(report, to: job.reportPath) && report.error == nil
    }

    private static func reportCommitted(_ number: Int) {
        let line = Array("\(number)\n".utf8)
        _ = line.withUnsafeBytes { Glibc.write(reportDescriptor, $0.baseAddress, $0.count) }
    }

    private static func write(_ job: CrashJob, kind: StoreKind, at directory: URL) throws {
        guard let store = try kind.open(directory) as? any ConcurrentReadStore else {
            throw BenchError("\(kind.name) cannot commit items one transaction at a time")
        }
        var plan = CrashPlan(scale: job.scale, seed: job.seed, run: job.run)
        reportCommitted(0)
        var number = 0
        while job.transactions.map({ number < $0 }) ?? true {
            try CrashPlan.apply(plan.next(), to: store)
            number += 1
            reportCommitted(number)
        }
        try store.close()
    }

    private static func verify(_ job: CrashJob, kind: StoreKind, at directory: URL) throws -> (CrashVerdict, Double?) {
        let started = monotonicNanoseconds()
        let opened: any Store
        do {
            opened = try kind.open(directory)
        } catch {
            return (CrashVerdict(outcome: .corrupt, committed: job.committed, problem: "open: \(error)"), nil)
        }
        let openSeconds = Double(monotonicNanoseconds() - started) / 1e9
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
        let plan = CrashPlan(scale: job.scale, seed: job.seed, run: job.run, transactions: job.committed + 1)
        do {
            return (try plan.verdict(for: store, committed: job.committed), openSeconds)
        } catch {
            return (CrashVerdict(outcome: .corrupt, committed: job.committed, problem: "read: \(error)"), openSeconds)
        }
    }
}
