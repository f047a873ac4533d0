import Foundation

extension RunSession {
    // MARK: - The time check

    /// `check --base`: the matrix's cells of the two builds timed in turn (`Runner.interleaved`), each side written to
    /// `output`/base and `output`/current; then each store too noisy to catch a slowdown of `target` across its cells
    /// timed again with the repetitions it needs, within `budgetSeconds` for all and up to `TimeCheck.Power.rounds`
    /// rounds (`TimeCheck.Power`), into `output`/power/ROUND/STORE, and judged on every repetition; then the stores
    /// found slower timed again, twice the repetitions, this build first, into `output`/confirmation.
    ///
    /// A regression is what both judgements find slower.
    package func timeCheck(
        executables: Sides<String>, output: URL, target: Double, budgetSeconds: Double
    ) throws -> TimeCheck {
        let round = try timeRound(configuration, stores: stores, executables: executables, first: .base, output: output)
        let firstRound = try TimeComparison(base: round.base, current: round.current)
        // Each store's cost of one repetition, both builds: what a power round's repetitions will take.
        var secondsPerRepetition: [String: Double] = [:]
        for cell in round.base.cells + round.current.cells {
            secondsPerRepetition[cell.store, default: 0] +=
                (cell.runSeconds ?? 0) / Double(max(configuration.repetitions, 1))
        }
        let (first, added) = try powerRounds(
            after: round, judged: firstRound, secondsPerRepetition: secondsPerRepetition, executables: executables,
            output: output, target: target, budgetSeconds: budgetSeconds)
        let power = TimeCheck.Power(
            target: target, budgetSeconds: budgetSeconds,
            stores: first.stores.map { summary in
                let before = firstRound.stores.first { $0.name == summary.name }?.detectable ?? .infinity
                return TimeCheck.Power.Store(
                    name: summary.name, before: before,
                    needed: TimeComparison.repetitions(
                        toDetect: target, detectable: before, from: configuration.repetitions),
                    timed: configuration.repetitions + added[summary.name, default: 0],
                    after: summary.detectable ?? .infinity,
                    secondsPerRepetition: secondsPerRepetition[summary.name] ?? 0)
            })
        return TimeCheck(
            first: first, confirmation: try confirmation(after: first, executables: executables, output: output),
            power: power)
    }

    /// Up to `TimeCheck.Power.rounds` power rounds after the first `round` (`judged`): each store still too noisy to
    /// catch `target` timed again with the repetitions it needs, within what is left of `budgetSeconds`, and the
    /// check judged again on every repetition (a round's own repetitions may show more noise than the first's did).
    ///
    /// Returns the last judgement and the repetitions added to each store.
    private func powerRounds(
        after round: Sides<RunResults>, judged firstRound: TimeComparison, secondsPerRepetition: [String: Double],
        executables: Sides<String>, output: URL, target: Double, budgetSeconds: Double
    ) throws -> (judged: TimeComparison, added: [String: Int]) {
        var rounds = [round]
        var first = firstRound
        var added: [String: Int] = [:]
        let started = Date()
        for pass in 1...TimeCheck.Power.rounds {
            let extra = TimeCheck.Power.extraRepetitions(
                after: first, secondsPerRepetition: secondsPerRepetition,
                repetitions: { configuration.repetitions + added[$0, default: 0] }, target: target,
                budgetSeconds: budgetSeconds - Date().timeIntervalSince(started))
            if extra.isEmpty { break }
            for (store, repetitions) in extra {
                guard let kind = stores.first(where: { $0.name == store }) else { continue }
                let detectable = first.stores.first { $0.name == store }?.detectable ?? .infinity
                sink.event(
                    .timingAgainForPower(
                        store: store, repetitions: configuration.repetitions + added[store, default: 0],
                        detectable: detectable, target: target, adding: repetitions))
                var more = configuration
                more.stores = [store]
                more.repetitions = repetitions
                rounds.append(
                    try timeRound(
                        more, stores: [kind], executables: executables, first: .current,
                        output: output.appendingPathComponent("power").appendingPathComponent("\(pass)")
                            .appendingPathComponent(store)))
                added[store, default: 0] += repetitions
            }
            first = try TimeComparison(
                base: RunResults.pooling(rounds.map(\.base)), current: RunResults.pooling(rounds.map(\.current)))
        }
        return (first, added)
    }

    /// The confirmation round: the stores `first` found slower timed again, twice the repetitions, this build first,
    /// into `output`/confirmation; nil when it found none.
    private func confirmation(
        after first: TimeComparison, executables: Sides<String>, output: URL
    ) throws -> TimeComparison? {
        let again = TimeCheck.storesToConfirm(after: first)
        guard !again.isEmpty else { return nil }
        var confirming = configuration
        confirming.stores = again
        confirming.repetitions = TimeCheck.confirmationRepetitions(after: configuration.repetitions)
        sink.event(
            .confirming(slower: first.slower.map(\.name), timedAgain: again, repetitions: confirming.repetitions))
        let confirmed = try timeRound(
            confirming, stores: again.compactMap { name in stores.first { $0.name == name } },
            executables: executables, first: .current, output: output.appendingPathComponent("confirmation"))
        return try TimeComparison(base: confirmed.base, current: confirmed.current)
    }

    /// One interleaved round of `configuration`'s cells, each side written to `output`/base and `output`/current.
    private func timeRound(
        _ configuration: RunConfiguration, stores: [StoreKind], executables: Sides<String>,
        first: Side, output: URL
    ) throws -> Sides<RunResults> {
        let savers = Sides { sink.saver(into: output.appendingPathComponent($0.rawValue)) }
        return try Runner.interleaved(
            configuration: configuration, stores: stores, workloads: workloads,
            environment: environment(stores, output: nil),
            executables: executables, first: first, outputDirectory: output, observer: try sink.observer(log: nil),
            save: { side, results in try savers[side](results) })
    }
}
