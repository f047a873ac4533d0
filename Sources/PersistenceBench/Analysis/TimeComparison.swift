import Foundation

/// The two sides of an interleaved run (`Runner.interleaved`: a base revision's build and this one, timed in turn on
/// this machine) judged against each other.
///
/// Per cell: the current build's median time per operation over the base's, a bootstrap interval of that ratio, and a
/// one-sided Mann–Whitney test of the repetitions. Per store, over its cells, and over every cell together (what the
/// harness, the digest or the data every store is given did): the geometric mean of the cells' ratios, with a bootstrap
/// interval of its own, where the noise of single cells averages out. Both sides ran on one machine in one session, so
/// no probe or band of machines enters.
package struct TimeComparison: Codable, Sendable {
    /// The workloads `check --base` times unless told otherwise: the CRUD workloads a store's changes touch, one
    /// of each kind of question (a lookup, a scan, a count, a page) and of each kind of write (bulk, durable one
    /// by one, update, delete, a write then a read), and the other read paths apps live on: a keystroke's search
    /// and an observed query kept fresh (each a loop of steps, time-boxed like the rest).
    package static let defaultWorkloads = [
        "insert", "insert-each", "get", "scan", "count-where", "page", "update", "delete", "write-then-page", "search",
        "observe",
    ]

    // MARK: - Its parts

    /// When a change is a change.
    package struct Rule: Codable, Sendable, Equatable {
        /// The largest p at which a cell is slower (or faster), with `cellEffect`'s two conditions.
        package var alpha: Double
        /// The ratio a slower cell reaches at least (a faster one at most its inverse), its interval wholly above 1
        /// (below) and its test's p at most `alpha`.
        package var cellEffect: Double
        /// A store's cells together, or every cell together: slower when the interval of their geometric mean lies
        /// wholly above 1 and the mean is at least this.
        package var aggregateEffect: Double
        /// The intervals' confidence.
        package var confidence: Double

        package init(alpha: Double, cellEffect: Double, aggregateEffect: Double, confidence: Double) {
            self.alpha = alpha
            self.cellEffect = cellEffect
            self.aggregateEffect = aggregateEffect
            self.confidence = confidence
        }

        /// docs/regression-checks.md gives the A/A runs these rest on: on a shared 2-core VM a cell's repetitions
        /// spread ×1.1–×3.5 from one process to the next, and an unchanged tree read single cells up to ×1.43 with
        /// every repetition of one side slower than every one of the other (10 runs, 630 cells), so a cell alone is
        /// judged only on a gross change; a store's nine cells together read ×0.91–×1.12, every cell together
        /// ×0.97–×1.03, none with an interval above 1.
        package static let standard = Rule(alpha: 0.01, cellEffect: 1.6, aggregateEffect: 1.05, confidence: 0.95)
    }

    package struct Cell: Codable, Sendable {
        package var store: String
        package var workload: String
        package var scale: Scale
        /// Seconds per operation of each finished repetition, in run order.
        package var base: [Double]
        package var current: [Double]
        /// Median current ÷ median base.
        package var ratio: Double
        package var low: Double
        package var high: Double
        /// The one-sided p of the current side being slower (its U over the base's).
        package var pSlower: Double
        package var verdict: Verdict
        /// The smallest slowdown of this cell the rule could have called slower with the noise this round showed
        /// (`TimeComparison.detectable`); nil in comparisons written before it was kept.
        package var detectable: Double?
        /// Slowest ÷ fastest repetition of each side: the noise the cell measured when both sides were alike.
        package var baseSpread: Double { CellGroups.spread(base) }
        package var currentSpread: Double { CellGroups.spread(current) }
    }

    /// A store's cells, or every cell, together.
    package struct Summary: Codable, Sendable {
        /// A store's name, or "every store".
        package var name: String
        package var cells: Int
        /// The geometric mean of the cells' ratios, and its interval.
        package var ratio: Double
        package var low: Double
        package var high: Double
        package var verdict: Verdict
        /// The smallest slowdown of every one of these cells the rule could have called slower with the noise this
        /// round showed (`TimeComparison.detectable`); nil in comparisons written before it was kept.
        package var detectable: Double?
    }

    package var rule: Rule
    package var cells: [Cell]
    package var stores: [Summary]
    package var overall: Summary?
    /// Cells not judged: one side has no finished repetition, with why.
    package var notCompared: [String]
    /// Cells whose answers differ between the builds (their digests), with both: a wrong answer is a regression
    /// whatever its time, and these are not timed (they did not do the same work).
    ///
    /// Nil in comparisons written before they were kept apart from `notCompared`.
    package var differentAnswers: [String]?
    /// Cells the current build did not finish that the base did: a regression of their own. (Whether the stores
    /// agree is the counter check's to judge: there every store does every step; here each cell does the steps
    /// its first run fitted in its time box.)
    package var unfinished: [Unfinished]

    package struct Unfinished: Codable, Sendable, CustomStringConvertible {
        package var store: String
        package var workload: String
        package var scale: Scale
        package var reason: String
        package var description: String { "\(store) \(workload) \(scale): \(reason)" }
    }

    /// What a regression is about, with its figures; `stores` are those whose cells decide it, which a confirmation
    /// round times again.
    package struct Subject: Sendable {
        package enum Kind: Sendable {
            case unfinished(Unfinished)
            case cell(Cell)
            /// A store's cells together, or every cell together.
            case summary(Summary)
        }

        package var kind: Kind
        package var stores: [String]

        /// The cell's "store workload scale" (after "no longer finishes: " when unfinished), or the summary's name.
        package var name: String {
            switch kind {
            case .unfinished(let cell): "no longer finishes: \(cell.store) \(cell.workload) \(cell.scale)"
            case .cell(let cell): "\(cell.store) \(cell.workload) \(cell.scale)"
            case .summary(let summary): summary.name
            }
        }
    }

    /// Everything found slower, in the order: cells no longer finished, cells, stores, every store together.
    /// (Comparing no cell at all is no subject: there is nothing to time again.)
    package var slower: [Subject] {
        unfinished.map { Subject(kind: .unfinished($0), stores: [$0.store]) }
            + cells.filter { $0.verdict == .worse }.map { Subject(kind: .cell($0), stores: [$0.store]) }
            + stores.filter { $0.verdict == .worse }.map { Subject(kind: .summary($0), stores: [$0.name]) }
            + [overall].compactMap { $0 }.filter { $0.verdict == .worse }.map {
                Subject(kind: .summary($0), stores: stores.map(\.name))
            }
    }

    // MARK: - Judging two runs

    package init(base: RunResults, current: RunResults, rule: Rule = .standard) throws {
        guard base.configuration.seed == current.configuration.seed else {
            throw BenchError("the two sides used different seeds: their data and digests are not comparable")
        }
        self.rule = rule
        let baseGroups = CellGroups.groups(base.cells, storeOrder: base.stores)
        let currentGroups = CellGroups.groups(current.cells, storeOrder: current.stores)
        cells = []
        notCompared = []
        var differentAnswers: [String] = []
        unfinished = []
        var samples: [(store: String, base: [Double], current: [Double])] = []
        for (key, baseCells) in baseGroups.ordered {
            let name = "\(key)"
            let was = baseCells.filter { $0.status == .ok }.compactMap(\.metrics)
            let now = (currentGroups.byKey[key] ?? []).filter { $0.status == .ok }.compactMap(\.metrics)
            if baseCells.allSatisfy({ $0.status == .notApplicable }) { continue }
            guard !was.isEmpty else {
                notCompared.append("\(name): the base build finished no repetition")
                continue
            }
            guard !now.isEmpty else {
                let reasons = Set((currentGroups.byKey[key] ?? []).compactMap(\.reason)).sorted()
                unfinished.append(
                    Unfinished(
                        store: key.store, workload: key.workload, scale: key.scale, reason: reasons.first ?? "not run"))
                continue
            }
            if let difference = Self.differentAnswers(name, base: was, current: now) {
                differentAnswers.append(difference)
                continue
            }
            let baseTimes = was.map(\.phase.timePerOperation)
            let currentTimes = now.map(\.phase.timePerOperation)
            cells.append(Self.cell(key, base: baseTimes, current: currentTimes, rule: rule, seed: UInt64(cells.count)))
            samples.append((key.store, baseTimes, currentTimes))
        }
        var order: [String] = []
        for sample in samples where !order.contains(sample.store) { order.append(sample.store) }
        stores = order.map { store in
            Self.summary(store, samples.filter { $0.store == store }, rule: rule)
        }
        overall = samples.isEmpty ? nil : Self.summary("every store", samples, rule: rule)
        self.differentAnswers = differentAnswers
    }

    /// A line naming the two sides' different answers of the cell `name`, or nil when they agree.
    ///
    /// A loop that stopped short of its budget floor on its own time did its own count of steps: the steps every cell
    /// did (its prefix) are what both builds must answer alike.
    private static func differentAnswers(_ name: String, base: [CellMetrics], current: [CellMetrics]) -> String? {
        let shortened = (base + current).contains { $0.verification.stoppedShort == true }
        let answers = { (side: [CellMetrics]) in
            Set(side.map { ((shortened ? $0.verification.prefix?.digest : nil) ?? $0.digest).description }).sorted()
        }
        guard answers(base) != answers(current) else { return nil }
        return "\(name): digest \(answers(base).joined(separator: ", ")) in the base, "
            + "\(answers(current).joined(separator: ", ")) now"
    }

    /// One cell's times per operation judged: the ratio of their medians, its bootstrap interval (seeded by `seed`)
    /// and the rank tests' p either way.
    private static func cell(_ key: SeriesID, base: [Double], current: [Double], rule: Rule, seed: UInt64) -> Cell {
        let ratio = ratioOfMedians(base, current)
        let interval = bootstrapInterval([base, current], confidence: rule.confidence, seed: seed) {
            ratioOfMedians($0[0], $0[1])
        }
        let pSlower = mannWhitneyUpperP(base, current)
        let pFaster = mannWhitneyUpperP(current, base)
        let verdict: Verdict =
            pSlower <= rule.alpha && interval.lowerBound > 1 && ratio >= rule.cellEffect
            ? .worse
            : pFaster <= rule.alpha && interval.upperBound < 1 && ratio <= 1 / rule.cellEffect ? .better : .same
        // Separated: the factor by which every current repetition, scaled to the base's median, must grow to lie above
        // every base repetition (what a rank test of 5 and 5 needs to reach p ≤ 0.01).
        let separated = (base.max() ?? 0) * ratio / max(current.min() ?? .infinity, .leastNonzeroMagnitude)
        return Cell(
            store: key.store, workload: key.workload, scale: key.scale, base: base, current: current, ratio: ratio,
            low: interval.lowerBound, high: interval.upperBound, pSlower: pSlower, verdict: verdict,
            detectable: max(detectable(ratio: ratio, low: interval.lowerBound, effect: rule.cellEffect), separated))
    }

    /// The median of `current` over that of `base`; NaN when either is empty.
    static func ratioOfMedians(_ base: [Double], _ current: [Double]) -> Double {
        guard let now = median(current), let was = median(base) else { return .nan }
        return now / was
    }

    /// The geometric mean of cells' ratios, with a bootstrap interval that resamples every cell's repetitions.
    static func summary(
        _ name: String, _ samples: [(store: String, base: [Double], current: [Double])], rule: Rule
    ) -> Summary {
        func geometricMean(_ drawn: [[Double]]) -> Double {
            var logs = 0.0
            for index in stride(from: 0, to: drawn.count, by: 2) {
                logs += log(ratioOfMedians(drawn[index], drawn[index + 1]))
            }
            return exp(logs / Double(drawn.count / 2))
        }
        let flat = samples.flatMap { [$0.base, $0.current] }
        let ratio = geometricMean(flat)
        let interval = bootstrapInterval(
            flat, confidence: rule.confidence, resamples: 1000,
            seed: UInt64(name.utf8.reduce(0) { $0 &* 31 &+ UInt64($1) }),
            statistic: geometricMean)
        let verdict: Verdict =
            interval.lowerBound > 1 && ratio >= rule.aggregateEffect
            ? .worse : interval.upperBound < 1 && ratio <= 1 / rule.aggregateEffect ? .better : .same
        return Summary(
            name: name, cells: samples.count, ratio: ratio, low: interval.lowerBound, high: interval.upperBound,
            verdict: verdict,
            detectable: detectable(ratio: ratio, low: interval.lowerBound, effect: rule.aggregateEffect))
    }

    // MARK: - Power

    /// The minimum detectable effect of a ratio judged by an interval: the smallest slowdown that, with the noise
    /// this round showed (the interval's reach below its ratio, `ratio ÷ low`), would put the interval's lower end
    /// above 1, and that the rule's least effect (`effect`) allows; a slowdown of that size is caught about half the
    /// time, a larger one more often.
    ///
    /// Infinite when the interval reaches 0.
    package static func detectable(ratio: Double, low: Double, effect: Double) -> Double {
        guard low > 0, ratio.isFinite else { return .infinity }
        return max(effect, ratio / low)
    }

    /// The slowdown across a store's cells that the check catches four times in five through both of its rounds, on
    /// this host's noise: what a reader may count on, where `detectable` is caught about half the time in one round.
    ///
    /// A normal approximation on the log scale: the first round's interval (`low`…`ratio`, at `confidence`) gives the
    /// standard error of its log ratio; the confirmation round's, on `confirmation` repetitions a side against the
    /// first's `repetitions`, is smaller by the square root of their ratio. A round catches a true slowdown `s` when
    /// its estimate clears both the interval's bar (its lower end above 1) and the rule's least `effect`; both rounds
    /// must, independently (new processes, minutes apart). Solved for the `s` at which that happens with
    /// probability 0.8. Infinite when the interval reaches 0.
    package static func caughtFourInFive(
        ratio: Double, low: Double, effect: Double, confidence: Double, repetitions: Int, confirmation: Int
    ) -> Double {
        guard low > 0, ratio > 0, ratio.isFinite, repetitions > 0, confirmation > 0 else { return .infinity }
        let z = normalQuantile(1 - (1 - confidence) / 2)
        let first = max(log(ratio / low), 1e-6) / z
        let second = first * (Double(repetitions) / Double(confirmation)).squareRoot()
        func caught(_ logSlowdown: Double) -> Double {
            [first, second].reduce(1.0) { chance, error in
                chance * normalCDF((logSlowdown - max(z * error, log(effect))) / error)
            }
        }
        var (lower, upper) = (0.0, 10.0)
        guard caught(upper) >= 0.8 else { return .infinity }
        for _ in 0..<100 {
            let middle = (lower + upper) / 2
            if caught(middle) >= 0.8 { upper = middle } else { lower = middle }
        }
        return exp(upper)
    }

    /// The standard normal distribution function.
    static func normalCDF(_ x: Double) -> Double { 0.5 * erfc(-x / 2.0.squareRoot()) }

    /// The standard normal quantile of `p` (0 < p < 1), by bisection of `normalCDF`.
    static func normalQuantile(_ p: Double) -> Double {
        var (lower, upper) = (-10.0, 10.0)
        for _ in 0..<100 {
            let middle = (lower + upper) / 2
            if normalCDF(middle) < p { lower = middle } else { upper = middle }
        }
        return (lower + upper) / 2
    }

    /// The repetitions a side that would bring a store's detectable slowdown from `detectable` down to `target`,
    /// from `repetitions`: an interval narrows as the square root of its samples.
    package static func repetitions(toDetect target: Double, detectable: Double, from repetitions: Int) -> Int {
        guard detectable > target, target > 1 else { return repetitions }
        guard detectable.isFinite else { return Int.max }
        let factor = pow(log(detectable) / log(target), 2)
        return Int((Double(repetitions) * factor).rounded(.up))
    }
}
