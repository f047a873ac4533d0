/// Repeats a fixed round of count questions until a cell has timed enough work to measure.
enum CountRounds {
    /// The least timed work per cell: 32 answers of 60 ns each would time the clock, not the store, and 8 answers
    /// of 1.4 ms (a SQLite store's `count-range` at 10k) one scheduler hiccup: with 10 ms, a CI check once read
    /// such a cell ×2.7 slower on an unchanged tree.
    ///
    /// 100 ms holds 70 of those answers.
    static let minimumTimedSeconds = 0.1
    /// The most answers per cell, whatever the time: bounds a store that answers in nanoseconds.
    static let maximumOperations = 2_000_000

    /// Asks every question of `questions` in turn (each answer timed), in rounds, as many rounds as every store of
    /// the (workload, scale, repetition) asks (`TimeBox`): in the first repetition each cell repeats its round until
    /// `minimumTimedSeconds` of answers are timed, or it has asked the group's count of questions so far; the group's
    /// count is then the fewest questions any cell asked, and every cell asks exactly that many whole rounds (the
    /// runner runs again a first-repetition cell that asked more).
    ///
    /// A run without a clock asks the group's count or, with none (`--time-box none`), one round; a counted run's 50
    /// steps are one round of `count-where`. The digest holds the first round's answers; every later round must answer
    /// the same, or the workload fails, so the digest does not depend on how many rounds a store asked. The outcome's
    /// steps are the questions asked, and its first round's timed seconds are kept apart (a cold round's scans fault
    /// the store's pages in).
    ///
    /// `check` is given the first round's answers (untimed) and throws if they cannot be right.
    static func run<Question>(
        _ questions: [Question], workload: String, context: WorkloadContext,
        check: ([Int]) throws -> Void = { _ in }, answer: (Question) throws -> Int
    ) throws -> WorkloadOutcome {
        let roundLimit = context.timeBox.stepLimit.map { max(1, $0 / questions.count) }
        let clocked = context.timeBox.seconds != nil
        var first: [Int] = []
        var digest = Digest()
        var operations = 0
        var round = 0
        var firstRoundSeconds = 0.0
        func another() -> Bool {
            if round == 0 { return true }
            if let roundLimit, round >= roundLimit { return false }
            guard clocked else { return roundLimit != nil }
            return context.stopwatch.elapsedSeconds < minimumTimedSeconds
                && operations + questions.count <= maximumOperations
        }
        while another() {
            for (index, question) in questions.enumerated() {
                let count = try context.stopwatch.measureOperation { try answer(question) }
                if round == 0 {
                    first.append(count)
                    digest.add(count)
                } else if count != first[index] {
                    throw BenchError(
                        "\(workload): question \(index + 1) answered \(first[index]) in round 1, \(count) in round "
                            + "\(round + 1)")
                }
            }
            if round == 0 {
                firstRoundSeconds = context.stopwatch.elapsedSeconds
                try check(first)
            }
            operations += questions.count
            context.progress.advance(by: questions.count)
            round += 1
        }
        return WorkloadOutcome(
            operations: operations, digest: digest, steps: operations,
            firstRound: round > 1 ? FirstRound(operations: questions.count, seconds: firstRoundSeconds) : nil)
    }
}
