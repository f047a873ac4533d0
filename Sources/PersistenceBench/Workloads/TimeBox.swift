/// How long a cell that asks one question after another may go on (`--time-box`): it stops asking once the box has
/// passed and it has asked at least a minimum, and reports what it did (`CellMetrics.timeBoxed`). A store whose
/// every operation costs O(N) (a durable insert into `json`), or a lookup loop of 100,000 at a large scale, would
/// otherwise take minutes where the others take a second.
///
/// Boxed workloads: `insert-each` (its durable inserts; a boxed cell checks the store against the generator),
/// `get`, `get-zipfian`, `page` (their questions) and `write-then-page` (its rounds). A boxed cell did fewer
/// operations than the others, so it is compared with them on a fixed prefix of its answers (`DigestPrefixes`):
/// every cell of those workloads, boxed or not, keeps the digests of its first 20, 200, 2,000, … answers, and the
/// run compares the longest prefix every cell of a (workload, scale) reached.
public struct TimeBox: Sendable, Equatable {
    /// Nil: no box; every operation is done.
    public var seconds: Double?

    /// The box `persistbench run` uses unless told otherwise: half a second of durable commits or lookups is
    /// thousands of samples for every store but those whose every commit rewrites a file.
    public static let defaultSeconds = 0.5

    /// The fewest operations a boxed cell does, so that its median rests on enough samples.
    public static let minimumOperations = 20

    public static let none = TimeBox(seconds: nil)

    public init(seconds: Double?) { self.seconds = seconds }

    /// Starts the box now, at the start of the workload's loop.
    public func start() -> Running {
        Running(deadline: seconds.map { monotonicNanoseconds() + UInt64($0 * 1e9) })
    }

    /// A started box.
    public struct Running {
        let deadline: UInt64?

        /// Whether a loop that has done `done` operations (at least `minimum` of them before the box may stop it)
        /// does another.
        public func allowsMore(after done: Int, minimum: Int = TimeBox.minimumOperations) -> Bool {
            guard let deadline, done >= minimum else { return true }
            return monotonicNanoseconds() < deadline
        }
    }
}

/// The digests of a workload's first 20, 200, 2,000, … answers, taken as it goes: what a time-boxed cell is
/// compared on (`TimeBox`).
public struct DigestPrefixes: Sendable {
    public private(set) var digests: [Digest] = []
    private var next = TimeBox.minimumOperations

    /// Room for the prefixes of up to 20 million answers, allocated once.
    public init() { digests.reserveCapacity(7) }

    /// Called with the running digest after each answer: keeps it when its count is the next prefix length.
    public mutating func note(_ digest: Digest) {
        guard digest.count == next else { return }
        digests.append(digest)
        next *= 10
    }
}

extension WorkloadContext {
    /// Asks `questions` in turn until all are answered or the time box stops them (`TimeBox`): `answer` times its
    /// own store call and adds the answer to the digest; the digests of the first 20, 200, … answers are kept. The
    /// outcome of a workload that is such a loop (`get`, `page`).
    func askInTurn<Question>(_ questions: [Question], answer: (Question, inout Digest) throws -> Void) rethrows
        -> WorkloadOutcome
    {
        var digest = Digest()
        var prefixes = DigestPrefixes()
        let box = timeBox.start()
        var done = 0
        while done < questions.count, box.allowsMore(after: done) {
            try answer(questions[done], &digest)
            prefixes.note(digest)
            done += 1
        }
        return WorkloadOutcome(
            operations: done, digest: digest, timeBoxed: done < questions.count, digestPrefixes: prefixes.digests)
    }
}
