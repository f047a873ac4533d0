/// Repeats a fixed round of count questions until a cell has timed enough work to measure.
enum CountRounds {
    /// The least timed work per cell: 32 answers of 60 ns each would time the clock, not the store, and 8 answers
    /// of 1.4 ms (a SQLite store's `count-range` at 10k) one scheduler hiccup: with 10 ms, a CI check once read
    /// such a cell ×2.7 slower on an unchanged tree. 100 ms holds 70 of those answers.
    static let minimumTimedSeconds = 0.1
    /// The most answers per cell, whatever the time: bounds a store that answers in nanoseconds.
    static let maximumOperations = 2_000_000

    /// Asks every question of `questions` in turn (each answer timed), once and then, where the cell's time box has
    /// a clock, again until `minimumTimedSeconds` of answers are timed: a run without a clock (`--time-box none`, a
    /// counted run) asks one round, the same on every machine. The digest holds the first round's answers; every
    /// later round must answer the same, or the workload fails, so the digest does not depend on how fast a store
    /// was.
    static func run<Question>(
        _ questions: [Question], workload: String, context: WorkloadContext, answer: (Question) throws -> Int
    ) throws -> WorkloadOutcome {
        var first: [Int] = []
        var digest = Digest()
        var operations = 0
        var round = 0
        while round == 0
            || (context.timeBox.seconds != nil && context.stopwatch.elapsedSeconds < minimumTimedSeconds
                && operations + questions.count <= maximumOperations)
        {
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
            operations += questions.count
            context.progress.advance(by: questions.count)
            round += 1
        }
        return WorkloadOutcome(operations: operations, digest: digest)
    }
}
