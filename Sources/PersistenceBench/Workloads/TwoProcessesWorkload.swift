import Foundation

/// `two-processes`: an app and its extension on one store, each committing its own changes durably.
///
/// A store of N items. The cell's process (the app) opens it and makes M = min(N / 10, 1,000) durable commits of one
/// new item each, each after a lookup of a seeded item, alone. Then it starts a second process of this tool (the
/// extension, `SecondProcessJob`), which opens the same directory with the same store and makes M durable commits of
/// items of its own, while the app makes M more as before. Each process times its commits, and the store counts how
/// often a write waited for the other process's lock and for how long (`LockWaitCountingStore`). A commit that fails
/// (`SQLITE_BUSY` once the busy timeout is spent) is counted, not retried. A store that lets one process at a time
/// write its files refuses the extension's open (`DirectoryLock`): the extension reports the refusal and the app
/// commits alone. At the end the app settles and closes the store, opens it again, and reads every commit either
/// process acknowledged: one missing or different is lost, and counted.
///
/// Timed (ops/s, latency): the app's commits beside the extension, and the settle. The digest holds the app's
/// lookups and its own commits as the reopened store holds them: what every store must agree on, whether it lets
/// the extension in or refuses it. The extension's commits are checked and counted apart (`TwoProcessesMetrics`).
package struct TwoProcessesWorkload: ItemWorkload, OpeningWorkload {
    package init() {}

    package var name: String { "two-processes" }
    package var summary: String {
        "the app commits min(N / 10, 1,000) items durably, a lookup before each, alone; then again while a second "
            + "process (an extension) opens the same store and commits as many of its own; every acknowledged "
            + "commit of both looked for after a reopen. ops/s and latency: the app's commits beside the extension"
    }
    package var fixture: Fixture? { .items }
    /// The app's saves beside the extension, whose one stall a p99 of 1,000 hides (its slowest, and its p99.9),
    /// and a save from the extension while the app writes.
    ///
    /// A store that refuses the second process is marked so in each column, not judged: its app committed alone.
    package var report: WorkloadReport {
        WorkloadReport(
            appBudgets: [
                AppBudget.slowest(
                    "the app's slowest save beside a second process ≤ 100 ms", within: AppBudget.instant,
                    source: AppBudget.instantSource
                ) { $0.figures?.twoProcesses?.app.latency },
                AppBudget.p999(
                    "the app's save p99.9 beside a second process ≤ a frame", within: AppBudget.frame,
                    source: AppBudget.frameSource
                ) { $0.figures?.twoProcesses?.app.latency },
                AppBudget.p99(
                    "a save from a second process p99 ≤ a frame", within: AppBudget.frame,
                    source: AppBudget.frameSource
                ) { $0.figures?.twoProcesses?.secondProcess.latency },
            ])
    }

    /// Each process's durable commits in a phase: 1,000 from 10k items up, so that a p99 rests on 1,000.
    package static func commits(scale: Int) -> Int { max(1, min(scale / 10, 1_000)) }

    /// The ids of the app's commits alone, beside the extension, and the extension's: above N, apart.
    static func ids(scale: Int) -> (
        alone: ClosedRange<Int64>, beside: ClosedRange<Int64>, extension: ClosedRange<Int64>
    ) {
        let (n, m) = (Int64(scale), Int64(commits(scale: scale)))
        return (n + 1...n + m, n + m + 1...n + 2 * m, n + 2 * m + 1...n + 3 * m)
    }

    package func run(on store: any ItemStore, context: WorkloadContext) throws -> WorkloadOutcome {
        throw BenchError("workload \(name) opens its store itself, in each of its two processes")
    }

    package func run(opening kind: StoreKind, at directory: URL, context: WorkloadContext) throws
        -> (outcome: WorkloadOutcome, store: any Store)
    {
        guard let tool = context.executable else {
            throw BenchError(
                "workload \(name) starts a second process of persistbench, and this process cannot (it is not the tool)"
            )
        }
        let scale = context.scale
        let ids = Self.ids(scale: scale)
        let store = try requireCapability(try kind.open(directory), (any ItemStore).self, for: "workload \(name)")
        var lookups = SplitMix64(seed: context.seed, stream: .processLookups, index: 0)
        var digest = Digest()
        let lookup = { () throws -> Void in
            digest.add(answer: try store.item(id: 1 + Int64(lookups.below(UInt64(max(scale, 1))))))
        }
        let alone = try Self.commit(ids.alone, to: store, items: context.items, before: lookup, timedBy: nil)
        let second = try SecondProcess.start(
            SecondProcessJob(
                store: kind.name, directory: directory.path, seed: context.seed, ids: ids.extension),
            tool: tool)
        var besideCommits: [CommitSpan.Interval] = []
        let beside = try Self.commit(
            ids.beside, to: store, items: context.items, before: lookup, timedBy: context.stopwatch,
            intervals: &besideCommits)
        var other = try second.finish()
        var app = beside
        app.lockWaits = (store as? any LockWaitCountingStore)?.lockWaits
        // A commit of the app's overlapped the extension's when it was under way at any time between the
        // extension's first commit's start and its last one's end (one that waited out all of them counts).
        app.interleaved = other.span.map { span in
            besideCommits.count { $0.begun <= span.last && $0.ended >= span.first }
        }
        try context.stopwatch.measure { try store.settle() }
        try store.close()
        // What the next launch finds: a store opened again, not the app's own view of it.
        let reopened = try requireCapability(try kind.open(directory), (any ItemStore).self, for: "workload \(name)")
        let appFailed = Set(alone.failedIDs + beside.failedIDs)
        app.lost = try Self.lost(
            (Array(ids.alone) + Array(ids.beside)).filter { !appFailed.contains($0) }, in: reopened,
            items: context.items)
        if other.refusal == nil {
            let failed = Set(other.failedIDs)
            other.lost = try Self.lost(
                ids.extension.prefix(other.commits + failed.count).filter { !failed.contains($0) }, in: reopened,
                items: context.items)
        }
        for id in Array(ids.alone) + Array(ids.beside) { digest.add(answer: try reopened.item(id: id)) }
        let metrics = TwoProcessesMetrics(
            commitsPerProcess: ids.alone.count, appAlone: alone, app: app, secondProcess: other,
            lockWaitPolicy: (kind.type as? any LockWaitCountingStore.Type)?.lockWaitPolicy)
        return (WorkloadOutcome(operations: beside.commits, digest: digest, figures: .twoProcesses(metrics)), reopened)
    }

    /// Commits one item of each id in `ids` durably, `before` each (a lookup, or nothing: its error is the cell's),
    /// timing each commit (and recording it on `stopwatch`, if given).
    ///
    /// A commit that throws is counted as failed and not retried.
    static func commit(
        _ ids: ClosedRange<Int64>, to store: any ItemStore, items: ItemGenerator, before: () throws -> Void = {},
        timedBy stopwatch: Stopwatch?, stop: () -> Bool = { false }
    ) throws -> ProcessCommits {
        var intervals: [CommitSpan.Interval] = []
        return try commit(
            ids, to: store, items: items, before: before, timedBy: stopwatch, stop: stop, intervals: &intervals)
    }

    /// As above, with each acknowledged commit's start and end (`monotonicNanoseconds`, one clock for every process
    /// of the machine) in `intervals`.
    static func commit(
        _ ids: ClosedRange<Int64>, to store: any ItemStore, items: ItemGenerator, before: () throws -> Void = {},
        timedBy stopwatch: Stopwatch?, stop: () -> Bool = { false }, intervals: inout [CommitSpan.Interval]
    ) throws -> ProcessCommits {
        var latencies: [UInt64] = []
        latencies.reserveCapacity(ids.count)
        intervals.reserveCapacity(ids.count)
        var lastEnd: UInt64 = 0
        var failed: [Int64] = []
        var firstFailure: String?
        let start = monotonicNanoseconds()
        for id in ids {
            if stop() { break }
            let item = items.item(id: id)
            try before()
            do {
                let begun = monotonicNanoseconds()
                if let stopwatch {
                    try stopwatch.measureOperation { try store.insertDurably(item) }
                } else {
                    try store.insertDurably(item)
                }
                lastEnd = monotonicNanoseconds()
                latencies.append(lastEnd - begun)
                intervals.append(CommitSpan.Interval(begun: begun, ended: lastEnd))
            } catch {
                failed.append(id)
                if firstFailure == nil { firstFailure = "\(error)" }
            }
        }
        var commits = ProcessCommits(
            commits: latencies.count, seconds: secondsSince(start), latencies: latencies, failedIDs: failed,
            firstFailure: firstFailure)
        commits.span = intervals.first.map { CommitSpan(first: $0.begun, last: lastEnd) }
        return commits
    }

    /// How many of the acknowledged commits `ids` the store does not hold as they were committed.
    static func lost(_ ids: [Int64], in store: any ItemStore, items: ItemGenerator) throws -> Int {
        try ids.count { try store.item(id: $0) != items.item(id: $0) }
    }
}

/// What `two-processes` measured besides its timed commits.
package struct TwoProcessesMetrics: Codable, Equatable, Sendable {
    /// Each process's commits in a phase (M).
    package var commitsPerProcess: Int
    /// The app's commits before the extension started.
    package var appAlone: ProcessCommits
    /// The app's commits beside the extension; its lock waits and lost commits are over both phases.
    package var app: ProcessCommits
    /// The extension: its commits, waits and losses, or its refused open.
    package var secondProcess: ProcessCommits
    /// How the store's writes wait for another process's lock (`LockWaitCountingStore.lockWaitPolicy`).
    package var lockWaitPolicy: String?
}

/// One process's durable commits in `two-processes`.
package struct ProcessCommits: Codable, Equatable, Sendable {
    /// Why the store refused this process's open, if it did (it then committed nothing).
    package var refusal: String?
    /// Whether that refusal was the store's declared lock (`StoreInUse`) rather than a failure.
    package var refusedByLock: Bool?
    /// The commits that returned: acknowledged.
    package var commits: Int
    package var commitsPerSecond: Double
    package var latency: LatencySummary?
    /// The ids whose commit threw (`SQLITE_BUSY`), not retried; and the first such error.
    package var failedIDs: [Int64]
    package var firstFailure: String?
    /// The process's waits for the other's lock, as its store counted them; nil where the store does not.
    package var lockWaits: LockWaits?
    /// Acknowledged commits that the store, opened again at the end, did not hold as committed; nil until looked.
    package var lost: Int?
    /// From the start of its first acknowledged commit to the end of its last; nil without one (or in results
    /// recorded before 2026-12-02).
    package var span: CommitSpan?
    /// The app's commits beside the extension that were under way at some time within the extension's `span`: how
    /// many of its commits the extension's could be in the way of.
    ///
    /// Nil for the extension, and where it committed nothing.
    package var interleaved: Int?

    package init(
        commits: Int, seconds: Double, latencies: [UInt64], failedIDs: [Int64] = [], firstFailure: String? = nil
    ) {
        self.commits = commits
        commitsPerSecond = Double(commits) / max(seconds, 1e-9)
        latency = LatencySummary(nanoseconds: latencies)
        self.failedIDs = failedIDs
        self.firstFailure = firstFailure
    }

    /// A process whose open the store refused.
    package init(refusal: String, byLock: Bool) {
        self.init(commits: 0, seconds: 1, latencies: [])
        self.refusal = refusal
        refusedByLock = byLock
    }
}

/// When one process's commits ran: `monotonicNanoseconds` at the first one's start and the last one's end.
package struct CommitSpan: Codable, Equatable, Sendable {
    package var first: UInt64
    package var last: UInt64

    /// One commit's start and end.
    package struct Interval: Sendable {
        package var begun: UInt64
        package var ended: UInt64
    }
}
