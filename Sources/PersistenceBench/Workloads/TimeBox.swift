/// How far a workload that asks one question after another goes: every store of a (workload, scale) does the same
/// steps, and the slowest still fits the run.
///
/// A step is one question (`get`, `page`), one batch of questions (`get-batch`), one durable insert
/// (`insert-each`) or one round (`write-then-page`). A store whose every step costs O(N) (a durable insert into
/// `json`), or 100,000 lookups at a large scale, would otherwise take minutes where the others take a second. So
/// the runner sets the count of steps per (workload, scale) from the run itself (`Runner`): in the first
/// repetition each cell stops once `seconds` have passed (after at least `minimumSteps`) or at the fewest steps
/// a cell before it did (`stepLimit`); the group's count is then the fewest steps any of them did, every
/// first-repetition cell that did more runs again on exactly that count, and the later repetitions do that count
/// with no clock. Every cell of a group then did the same operations, its speed comes from them, and its digest
/// covers every answer it gave: the stores are compared on all of them.
public struct TimeBox: Codable, Sendable, Equatable {
    /// Wall seconds after which a loop stops at its next step; nil: no clock.
    package var seconds: Double?
    /// The most steps a loop does; nil: all of the workload's steps.
    package var stepLimit: Int?
    /// For a workload judged against an app's budget (`Workload.appBudgets`) in `persistbench run`: the fewest steps
    /// the clock lets a loop do (or all of the workload's own, if fewer), so that every budget figure is a p99 of
    /// `budgetSamples`.
    ///
    /// A store that at its pace after its first step would not reach it within `giveUpFactor` × `floorSeconds` goes
    /// on only to the samples a p99 rests on (`AppBudget.fewestForPercentile`) if its pace reaches those within
    /// `floorSeconds`, else stops on its own time (after at least `minimumSteps`, once `seconds` have passed); every
    /// loop stops at `floorSeconds`. It does not lower its group's count: its later repetitions do its own count.
    /// Nil: no floor.
    package var floor: Int?
    /// The longest a loop under a floor goes on toward it (`--floor-time`), and what its pace is judged against.
    package var floorSeconds: Double

    /// The box `persistbench run` uses unless told otherwise: half a second of durable commits or lookups is
    /// thousands of samples for every store but those whose every commit rewrites a file.
    package static let defaultSeconds = 0.5

    /// The fewest steps the clock lets a loop do, so that its median rests on enough samples.
    ///
    /// Ten, not more: the slowest store sets every store's count, and `json`'s durable insert at 100k (a rewrite of its
    /// file, 0.7–0.9 s) did 20 in 14–18 s a repetition, a sixth of the default run, for a box of half a second.
    package static let minimumSteps = 10

    /// The budget floor (`floor`): a p99 of 1,000 samples is the tenth slowest, and 1,000 durable saves reach
    /// SQLite's WAL auto-checkpoint (1,000 pages), the stall a save's tail is made of.
    package static let budgetSamples = 1_000
    /// How long a loop under a budget floor may take to reach it, unless told otherwise (`--floor-time`): 1,000
    /// saves of up to 20 ms each, a durable commit on a slow disk; a whole-file save of a large document does fewer.
    package static let defaultFloorSeconds = 20.0

    /// A loop gives up its floor once its pace would take more than this many times `floorSeconds` to reach it: one
    /// at a pace near the floor's (a durable commit of 20 ms on a slow disk, or a slower first step) goes on until
    /// `floorSeconds` and gives a p99 of several hundred, while `json`'s save at 10k (42–61 ms a save) projects 42 s
    /// or more and stops at 100.
    package static let giveUpFactor = 1.5

    public static let none = TimeBox(seconds: nil)

    package init(
        seconds: Double?, stepLimit: Int? = nil, floor: Int? = nil, floorSeconds: Double = TimeBox.defaultFloorSeconds
    ) {
        self.seconds = seconds
        self.stepLimit = stepLimit
        self.floor = floor
        self.floorSeconds = floorSeconds
    }

    /// Starts the box now, at the start of the workload's loop of `total` steps.
    package func start(steps total: Int, minimum: Int = TimeBox.minimumSteps) -> Running {
        let now = monotonicNanoseconds()
        let minimum = min(total, minimum)
        return Running(
            start: now, deadline: seconds.map { now + UInt64($0 * 1e9) },
            floorDeadline: floor != nil && seconds != nil ? now + UInt64(floorSeconds * 1e9) : nil,
            limit: min(total, stepLimit ?? total), minimum: minimum,
            floor: floor.map { min(total, Swift.max($0, minimum)) } ?? minimum, total: total)
    }

    /// A started box.
    package struct Running {
        let start: UInt64
        let deadline: UInt64?
        /// Where a loop short of `floor` stops anyway; nil without a floor.
        let floorDeadline: UInt64?
        let limit: Int
        /// The steps every cell of the group does, however slow: the common prefix on which a cell that stopped on
        /// its own time is compared with the others (`WorkloadOutcome.prefix`).
        package let minimum: Int
        /// The steps the clock lets a loop do unless `floorDeadline` passes first, or its pace gives them up.
        let floor: Int
        /// The workload's own count of steps.
        let total: Int
        /// Under a floor, when the loop's first step ended: its pace is judged on the steps after it.
        private var firstStepEnd: UInt64?

        init(
            start: UInt64, deadline: UInt64?, floorDeadline: UInt64?, limit: Int, minimum: Int, floor: Int, total: Int
        ) {
            (self.start, self.deadline, self.floorDeadline) = (start, deadline, floorDeadline)
            (self.limit, self.minimum, self.floor, self.total) = (limit, minimum, floor, total)
        }

        /// Whether a loop that has done `done` steps does another.
        package mutating func allowsMore(after done: Int) -> Bool { stepsAllowed(after: done, upTo: 1) > 0 }

        /// How many more steps, at most `block`, a loop that has done `done` does next: 0 when it stops.
        package mutating func stepsAllowed(after done: Int, upTo block: Int) -> Int {
            guard done < limit else { return 0 }
            if done == 1, floorDeadline != nil, firstStepEnd == nil { firstStepEnd = monotonicNanoseconds() }
            if let deadline, done >= minimum, case let now = monotonicNanoseconds(), now >= deadline {
                if done >= floor { return 0 }
                guard let floorDeadline, now < floorDeadline else { return 0 }
                // On toward the floor while its pace would reach it within `giveUpFactor` of the floor's time; else
                // toward the fewest samples a p99 rests on, while its pace reaches those within the floor's time;
                // else it stops on its own time. `json`'s whole-file save at 10k (61 ms) held each of its cells of
                // the default run at 20 s for 327 samples.
                let allowed = Double(floorDeadline - start)
                let percentile = min(floor, AppBudget.fewestForPercentile)
                guard
                    projected(floor, done: done, now: now) <= TimeBox.giveUpFactor * allowed
                        || (done < percentile && projected(percentile, done: done, now: now) <= allowed)
                else { return 0 }
            }
            return min(block, limit - done)
        }

        /// Nanoseconds from the loop's start to `steps` steps at its pace after its first step: a slow first step
        /// (`json`'s first page at 1M, 4 s, then 3 µs a page) counts once, not in every step's pace.
        private func projected(_ steps: Int, done: Int, now: UInt64) -> Double {
            let elapsed = Double(now - start)
            guard let firstStepEnd, done > 1 else { return elapsed * Double(steps) / Double(done) }
            return elapsed + Double(steps - done) * Double(now - firstStepEnd) / Double(done - 1)
        }

        /// Whether a loop that stopped after `done` steps did fewer than the workload's own count.
        package func stoppedEarly(after done: Int) -> Bool { done < total }

        /// Whether a loop that stopped after `done` steps stopped short of its floor, on its own time.
        package func stoppedShort(after done: Int) -> Bool { done < floor && done < limit }
    }
}

extension WorkloadContext {
    /// Questions asked in a row under one clock, when a question takes under `sampledAloneAbove`: the first of
    /// each block is timed alone as the latency sample, the block as a whole for the throughput.
    static let questionsPerBlock = 32
    /// A question slower than this (ns) is timed alone every time: two clock reads are then under 2% of it.
    static let sampledAloneAbove: UInt64 = 2_000

    /// Asks `questions` in turn, one step each, as far as the time box lets it (`TimeBox`), and digests the answers.
    ///
    /// `ask` is the store's call, the only thing timed; `fold` adds its answer to the digest (untimed) and returns
    /// how many operations it was (a lookup, or a batch's lookups). Fast questions are timed in blocks of
    /// `questionsPerBlock` (`Stopwatch.measureBlock`: three clock reads, the first question alone for the latency
    /// histogram), so that the clock's own cost (about 30 ns a read) is not added to every lookup of a store that
    /// answers in 100 ns; a question slower than `sampledAloneAbove` is timed alone every time. The answers of a
    /// block are kept until its clock stops, then digested. The outcome of a workload that is such a loop (`get`,
    /// `get-batch`, `page`).
    ///
    /// Always inlined into the workload's `run`: called through a generic closure, every question paid a
    /// reabstraction thunk and the answer's generic copy (16 of the loop's 22 ns against a store that does nothing,
    /// `HarnessFloor`); inlined, the call is the store's own witness and the answer a 64-byte move.
    ///
    /// `loopTiming` other than `.adaptive` holds every step alone or in blocks whatever the store's speed: the
    /// harness floor's loop, timed as the cell it is the floor of was (`HarnessFloor`). Under a budget floor
    /// (`TimeBox.floor`: `page`) every step is timed alone, so that the p99 judged against the budget is one of all
    /// the steps, not of one in 32; two clock reads are under 1 % of the fastest store's page.
    @inline(__always)
    func askInTurn<Question, Answer>(
        _ questions: [Question], ask: (Question) throws -> Answer, fold: (Answer, inout Digest) -> Int
    ) rethrows -> WorkloadOutcome {
        var digest = Digest()
        var prefixDigest: Digest?
        var box = timeBox.start(steps: questions.count)
        var done = 0
        var operations = 0
        var block = 1
        var alone = 0
        let timing = timeBox.floor != nil ? .alone : loopTiming
        var answers: [Answer] = []
        answers.reserveCapacity(Self.questionsPerBlock)
        while case let steps = box.stepsAllowed(after: done, upTo: block), steps > 0 {
            if steps == 1 {
                alone += 1
                answers.append(try stopwatch.measureOperation { try ask(questions[done]) })
            } else {
                try stopwatch.measureBlock {
                    answers.append(try ask(questions[done]))
                } rest: {
                    for index in (done + 1)..<(done + steps) { answers.append(try ask(questions[index])) }
                }
            }
            var answered = 0
            for (offset, answer) in answers.enumerated() {
                answered += fold(answer, &digest)
                if done + offset + 1 == box.minimum { prefixDigest = digest }
            }
            answers.removeAll(keepingCapacity: true)
            progress.advance(by: answered)
            operations += answered
            done += steps
            switch timing {
            case .adaptive:
                block = stopwatch.lastOperationNanoseconds > Self.sampledAloneAbove ? 1 : Self.questionsPerBlock
            case .alone: block = 1
            case .blocks: block = Self.questionsPerBlock
            }
        }
        return WorkloadOutcome(
            operations: operations, digest: digest, timeBoxed: box.stoppedEarly(after: done), steps: done,
            prefix: timeBox.floor == nil ? nil : prefixDigest.map { DigestPrefix(steps: box.minimum, digest: $0) },
            stoppedShort: box.stoppedShort(after: done), stepsTimedAlone: alone)
    }
}
