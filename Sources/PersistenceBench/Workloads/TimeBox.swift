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
public struct TimeBox: Sendable, Equatable {
    /// Wall seconds after which a loop stops at its next step; nil: no clock.
    package var seconds: Double?
    /// The most steps a loop does; nil: all of the workload's steps.
    package var stepLimit: Int?

    /// The box `persistbench run` uses unless told otherwise: half a second of durable commits or lookups is
    /// thousands of samples for every store but those whose every commit rewrites a file.
    package static let defaultSeconds = 0.5

    /// The fewest steps the clock lets a loop do, so that its median rests on enough samples. Ten, not more: the
    /// slowest store sets every store's count, and `json`'s durable insert at 100k (a rewrite of its file, 0.7–0.9 s)
    /// did 20 in 14–18 s a repetition, a sixth of the default run, for a box of half a second.
    package static let minimumSteps = 10

    public static let none = TimeBox(seconds: nil)

    package init(seconds: Double?, stepLimit: Int? = nil) {
        self.seconds = seconds
        self.stepLimit = stepLimit
    }

    /// Starts the box now, at the start of the workload's loop of `total` steps.
    package func start(steps total: Int, minimum: Int = TimeBox.minimumSteps) -> Running {
        Running(
            deadline: seconds.map { monotonicNanoseconds() + UInt64($0 * 1e9) },
            limit: min(total, stepLimit ?? total), minimum: minimum, total: total)
    }

    /// A started box.
    package struct Running {
        let deadline: UInt64?
        let limit: Int
        let minimum: Int
        /// The workload's own count of steps.
        let total: Int

        /// Whether a loop that has done `done` steps does another.
        package func allowsMore(after done: Int) -> Bool { stepsAllowed(after: done, upTo: 1) > 0 }

        /// How many more steps, at most `block`, a loop that has done `done` does next: 0 when it stops.
        package func stepsAllowed(after done: Int, upTo block: Int) -> Int {
            guard done < limit else { return 0 }
            if let deadline, done >= minimum, monotonicNanoseconds() >= deadline { return 0 }
            return min(block, limit - done)
        }

        /// Whether a loop that stopped after `done` steps did fewer than the workload's own count.
        package func stoppedEarly(after done: Int) -> Bool { done < total }
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
    @inline(__always)
    func askInTurn<Question, Answer>(
        _ questions: [Question], ask: (Question) throws -> Answer, fold: (Answer, inout Digest) -> Int
    ) rethrows -> WorkloadOutcome {
        var digest = Digest()
        let box = timeBox.start(steps: questions.count)
        var done = 0
        var operations = 0
        var block = 1
        var answers: [Answer] = []
        answers.reserveCapacity(Self.questionsPerBlock)
        while case let steps = box.stepsAllowed(after: done, upTo: block), steps > 0 {
            if steps == 1 {
                answers.append(try stopwatch.measureOperation { try ask(questions[done]) })
            } else {
                try stopwatch.measureBlock {
                    answers.append(try ask(questions[done]))
                } rest: {
                    for index in (done + 1)..<(done + steps) { answers.append(try ask(questions[index])) }
                }
            }
            var answered = 0
            for answer in answers { answered += fold(answer, &digest) }
            answers.removeAll(keepingCapacity: true)
            progress.advance(by: answered)
            operations += answered
            done += steps
            block = stopwatch.lastOperationNanoseconds > Self.sampledAloneAbove ? 1 : Self.questionsPerBlock
        }
        return WorkloadOutcome(
            operations: operations, digest: digest, timeBoxed: box.stoppedEarly(after: done), steps: done)
    }
}
