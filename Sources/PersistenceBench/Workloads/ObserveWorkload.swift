import Foundation

/// `observe` and `observe-burst`: one query kept fresh while a writer commits.
///
/// The query (`query`): the first page (20 items) of `page`'s query for `high` priority, and its count. A store of N
/// items is observed through the store's own mechanism (`ObservableItemStore`) while its thread commits a seeded
/// sequence of 1,000 small changes: inserts, updates or deletes of 1–3 items each, half of them inside the query's
/// result (items on the page, or new items that sort onto it) and half outside it (items of other priorities,
/// which leave the result as it was). The result expected after every commit is computed before the timed phase
/// from the generator, not from any store.
///
/// - `observe` (paced): after each commit the writer waits until the observer holds that commit's result; the
///   wait after a commit that changed the result is its latency (`FRESH`). The digest folds every expected result
///   in order: the observer delivered each of them. A commit and its wait are a step of the time box (`TimeBox`):
///   `run` judges it against a frame, so its budget floor keeps all 1,000 where the floor's time allows; a time
///   check does the count its first run's box allowed, a counted run its 50 (the counter gate leaves it out: the
///   observer's thread races the writer's, and its counts move with the machine's load).
/// - `observe-burst`: the writer commits as fast as it can and waits once, at the end, for the final result; the
///   report shows how many commits the observer coalesced (notices it answered with one query). The digest is the
///   final result.
///
/// Both also digest the store's items afterwards. Timed: the commits and the waits. Measured beside them: the
/// notices the observer got, the queries it ran, and the CPU time of every thread but the writer's.
package struct ObserveWorkload: ItemWorkload {
    package static let commits = 1_000
    package static let query = ObservedQuery(priority: .high, limit: 20)
    /// How long the writer waits for a fresh result before it calls the observation broken.
    static let deliveryTimeoutSeconds = 120.0

    /// Whether the writer waits for each commit's result before the next commit.
    package let paced: Bool

    package init(paced: Bool) { self.paced = paced }

    package var name: String { paced ? "observe" : "observe-burst" }
    /// The observed result holds a count of items per filter: a store that keeps it answers in O(1) and is labelled.
    ///
    /// A view kept fresh: each changed result delivered within a frame (paced only: a burst measures coalescing).
    private var budgets: [AppBudget] {
        paced
            ? [
                AppBudget(
                    name: "save to fresh result p99 ≤ a frame", limit: AppBudget.frame, source: AppBudget.frameSource
                ) { metrics in
                    guard let fresh = metrics.phase.latencyByOperation?[OperationKind.fresh.rawValue],
                        let commit = metrics.figures?.observe?.commitLatency
                    else { return nil }
                    return fresh.count >= AppBudget.fewestForPercentile
                        ? (commit.p99 + fresh.p99) / 1e6 : (commit.max + fresh.max) / 1e6
                } samples: { metrics in
                    metrics.phase.latencyByOperation?[OperationKind.fresh.rawValue].map {
                        AppBudget.Samples(count: $0.count, over: nil)
                    }
                }
            ]
            : []
    }
    package var report: WorkloadReport {
        WorkloadReport(
            operationKinds: [.fresh], countAsked: .itemsPerFilter, appBudgets: budgets)
    }
    package var summary: String {
        paced
            ? "one query (first page of 20 and count of one priority) observed through the store's own change "
                + "mechanism while 1,000 small commits land, each waited for: latency from commit to fresh result"
            : "the same query observed while the 1,000 commits land as fast as they can: notices coalesced, then "
                + "the final result"
    }
    package var fixture: Fixture? { .items }

    package var capability: StoreCapability { .observation }

    /// Waits for `step`'s result to arrive in `inbox` after its commit (named `after` in a timeout's message), timed
    /// by `stopwatch` as a fresh result where the step changes the query's result (or `fresh` says to).
    private func awaitResult(
        of step: ObservedPlan.Step, after: String, fresh: Bool = false, in inbox: ResultInbox,
        timedBy stopwatch: Stopwatch
    ) throws {
        guard fresh || step.changesResult else {
            return try inbox.wait(for: step.expected, after: after, timeout: Self.deliveryTimeoutSeconds)
        }
        try stopwatch.measureOperation(.fresh) {
            try inbox.wait(for: step.expected, after: after, timeout: Self.deliveryTimeoutSeconds)
        }
    }

    package func run(on store: any ItemStore, context: WorkloadContext) throws -> WorkloadOutcome {
        guard let store = store as? any ObservableItemStore else {
            throw BenchError("workload \(name) needs a store that can be observed; \(type(of: store)) cannot")
        }
        let plan = ObservedPlan(scale: context.scale, seed: context.seed, query: Self.query)
        let inbox = ResultInbox()
        let cpuBefore = ObserverCPU()
        let observation = try store.observe(Self.query) { inbox.put($0) }
        var digest = Digest()
        var changing = 0
        var commitNanoseconds: [UInt64] = []
        commitNanoseconds.reserveCapacity(plan.steps.count)
        // The burst is one step: its final result needs every commit.
        var box = context.timeBox.start(steps: plan.steps.count)
        var done = paced ? 0 : plan.steps.count
        var prefixDigest: Digest?
        do {
            try inbox.wait(for: plan.initial, after: "the start", timeout: Self.deliveryTimeoutSeconds)
            if paced { digest.add(plan.initial.digest) }
            context.restartTimeline()
            for (index, step) in plan.steps.enumerated() {
                guard !paced || box.allowsMore(after: index) else { break }
                let before = context.stopwatch.elapsedNanoseconds
                try context.stopwatch.measure { try step.change.apply(to: store) }
                commitNanoseconds.append(context.stopwatch.elapsedNanoseconds - before)
                context.progress.advance(by: 1)
                guard paced else { continue }
                if step.changesResult { changing += 1 }
                try awaitResult(of: step, after: "commit \(index + 1)", in: inbox, timedBy: context.stopwatch)
                digest.add(step.expected.digest)
                done = index + 1
                if done == box.minimum { prefixDigest = digest }
            }
            if !paced, let last = plan.steps.last {
                changing = plan.steps.count { $0.changesResult }
                try awaitResult(of: last, after: "the last commit", fresh: true, in: inbox, timedBy: context.stopwatch)
                digest.add(last.expected.digest)
            }
        } catch {
            try? observation.cancel()
            throw error
        }
        try observation.cancel()
        let observerSeconds = cpuBefore.observerSeconds()
        // A loop that stopped short of its floor is checked on its first `box.minimum` results alone: what the
        // store holds after its own count of commits is no other store's.
        return WorkloadOutcome(
            operations: done, digest: digest, alsoDigestsStore: true,
            figures: .observe(
                ObserveMetrics(
                    commits: done, commitsChangingResult: changing, deliveries: inbox.deliveries,
                    notifications: observation.notifications, requeries: observation.requeries,
                    observerCPUSeconds: observerSeconds, commitLatency: LatencySummary(nanoseconds: commitNanoseconds))),
            timeBoxed: paced && box.stoppedEarly(after: done), steps: paced ? done : nil,
            prefix: paced && context.timeBox.floor != nil
                ? prefixDigest.map { DigestPrefix(steps: box.minimum, digest: $0) } : nil,
            stoppedShort: paced && box.stoppedShort(after: done))
    }
}

/// What `observe` and `observe-burst` measured besides their timed commits and waits.
package struct ObserveMetrics: Codable, Equatable, Sendable {
    package var commits: Int
    /// Commits after which the query's result differed from the one before.
    package var commitsChangingResult: Int
    /// Results the observer delivered, the first (at the start) included.
    package var deliveries: Int
    /// Commits the store told the observer of (`ItemObservation.notifications`).
    package var notifications: Int
    /// Queries the observer ran after its first.
    package var requeries: Int
    /// CPU seconds of every thread but the writer's over the observed phase: the observer, and any thread the
    /// store's mechanism runs on (work a store's mechanism does on the writer's thread is in `commitLatency`).
    package var observerCPUSeconds: Double
    /// Each commit's time, from the call to its return (µs): it includes what the store's change mechanism does
    /// on the writer's thread before the commit returns.
    package var commitLatency: LatencySummary?

    package init(
        commits: Int, commitsChangingResult: Int, deliveries: Int, notifications: Int, requeries: Int,
        observerCPUSeconds: Double, commitLatency: LatencySummary?
    ) {
        self.commitLatency = commitLatency
        self.commits = commits
        self.commitsChangingResult = commitsChangingResult
        self.deliveries = deliveries
        self.notifications = notifications
        self.requeries = requeries
        self.observerCPUSeconds = observerCPUSeconds
    }
}

extension ObservedResult {
    /// The page's items and the count, as one answer.
    var digest: Digest {
        var digest = Digest()
        for item in items { digest.add(item) }
        digest.add(count)
        return digest
    }
}

/// The latest result the observer delivered, for the writer to wait on.
private final class ResultInbox: @unchecked Sendable {
    private let condition = NSCondition()
    private var latest: ObservedResult?
    private var delivered = 0

    func put(_ result: ObservedResult) {
        condition.lock()
        latest = result
        delivered += 1
        condition.broadcast()
        condition.unlock()
    }

    var deliveries: Int {
        condition.lock()
        defer { condition.unlock() }
        return delivered
    }

    /// Waits until the observer holds `expected`; an error naming `moment` after `timeout` seconds.
    func wait(for expected: ObservedResult, after moment: String, timeout: Double) throws {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while latest != expected {
            guard condition.wait(until: deadline) else {
                throw BenchError(
                    "the observer did not hold the expected result \(timeout) s after \(moment): it holds "
                        + (latest.map { "\($0.items.count) items, count \($0.count)" } ?? "nothing")
                        + "; expected \(expected.items.count) items, count \(expected.count)")
            }
        }
    }
}

/// The process's CPU time less the calling thread's, from when it was made: what the other threads used.
private struct ObserverCPU {
    let process = ObserverCPU.processSeconds()
    let thread = ObserverCPU.threadSeconds()

    func observerSeconds() -> Double {
        max(0, (Self.processSeconds() - process) - (Self.threadSeconds() - thread))
    }

    static func processSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec)
            + Double(usage.ru_stime.tv_usec) / 1e6
    }

    static func threadSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
