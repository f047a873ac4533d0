import Foundation

/// The time check's judgement, in two rounds.
///
/// A first interleaved round is judged (`TimeComparison`); on a shared machine a burst of a neighbour's work during one
/// store's cells can put that store's interval above 1 by chance (CI's host read an unchanged `memory` ×1.18
/// [1.03–1.37] once, where this one read it ×0.95–×1.03 four times). So whatever the first round finds slower is timed
/// again in a confirmation round: only the stores concerned, twice the repetitions, the current build first in odd
/// repetitions (the first round put the base first), in new processes. A regression is what both rounds find slower; a
/// check that compared no cell at all is one without a second round (a base that cannot run this build's cells is no
/// noise).
///
/// Before that, the check sizes itself to its host (`Power`): a store whose first round was too noisy to catch a
/// slowdown of `Power.target` across its cells is timed again with the repetitions that would, as far as the
/// power budget allows, and the first round's judgement is made on every repetition of the store together.
package struct TimeCheck: Sendable {
    /// The first round's judgement, on its repetitions and those of any power round.
    package var first: TimeComparison
    /// Nil when the first round found nothing slower.
    package var confirmation: TimeComparison?
    /// What the check could catch, store by store, and the repetitions it took; nil for a check that did not size
    /// itself.
    package var power: Power?

    package init(first: TimeComparison, confirmation: TimeComparison?, power: Power? = nil) {
        self.first = first
        self.confirmation = confirmation
        self.power = power
    }

    /// The smallest slowdown across a store's cells the check must be able to catch, the time it may spend on
    /// repetitions to reach it, and what it reached.
    package struct Power: Codable, Sendable {
        /// The slowdown (×1.10: 10 %) every store's detectable slowdown should reach.
        package var target: Double
        /// The wall seconds the power rounds may take in all.
        package var budgetSeconds: Double
        package var stores: [Store]

        package struct Store: Codable, Sendable {
            package var name: String
            /// The detectable slowdown of the store's cells together after the first round (5 repetitions a side).
            package var before: Double
            /// The repetitions a side the target needed after the first round
            /// (`TimeComparison.repetitions(toDetect:…)`), and those timed in all (the first round's and the power
            /// rounds').
            package var needed: Int
            package var timed: Int
            /// The detectable slowdown on every repetition timed.
            package var after: Double
            /// Wall seconds one repetition of the store's cells took, both builds.
            package var secondsPerRepetition: Double

            package init(
                name: String, before: Double, needed: Int, timed: Int, after: Double, secondsPerRepetition: Double
            ) {
                self.name = name
                self.before = before
                self.needed = needed
                self.timed = timed
                self.after = after
                self.secondsPerRepetition = secondsPerRepetition
            }
        }

        package init(target: Double, budgetSeconds: Double, stores: [Store]) {
            self.target = target
            self.budgetSeconds = budgetSeconds
            self.stores = stores
        }

        /// The stores whose detectable slowdown is still above the target: a check that passes them could have
        /// passed a slowdown of the target's size.
        package var underpowered: [Store] { stores.filter { $0.after > target } }

        /// The most power rounds a check times: each judged on every repetition so far, the next sized from it.
        package static let rounds = 3

        /// The repetitions to add a side, per store, after `first` (judged on `repetitions(store)` a side): what each
        /// store above the target needs, all cut in the same proportion to fit `budgetSeconds` (and at most `most`
        /// a side in all), in the comparison's order.
        ///
        /// Stores that need none are left out.
        package static func extraRepetitions(
            after first: TimeComparison, secondsPerRepetition: [String: Double], repetitions: (String) -> Int,
            target: Double, budgetSeconds: Double, most: Int = 60
        ) -> [(store: String, extra: Int)] {
            guard budgetSeconds > 0 else { return [] }
            let wanted = first.stores.compactMap { summary -> (store: String, extra: Int)? in
                guard let detectable = summary.detectable, detectable > target else { return nil }
                let timed = repetitions(summary.name)
                let needed = TimeComparison.repetitions(toDetect: target, detectable: detectable, from: timed)
                return (summary.name, min(needed, most) - timed)
            }.filter { $0.extra > 0 }
            let cost = wanted.reduce(0.0) { $0 + Double($1.extra) * (secondsPerRepetition[$1.store] ?? 0) }
            guard cost > budgetSeconds else { return wanted }
            let share = budgetSeconds / cost
            return wanted.map { ($0.store, Int((Double($0.extra) * share).rounded(.down))) }.filter { $0.extra > 0 }
        }
    }

    /// The stores a confirmation round must time again, in the first round's order: every store of every subject
    /// it found slower.
    ///
    /// Empty when it found nothing slower.
    package static func storesToConfirm(after first: TimeComparison) -> [String] {
        let wanted = Set(first.slower.flatMap(\.stores))
        var order = first.stores.map(\.name)
        for unfinished in first.unfinished where !order.contains(unfinished.store) { order.append(unfinished.store) }
        return order.filter(wanted.contains)
    }

    /// The repetitions of a confirmation round: twice the first round's, so that its intervals are narrower.
    package static func confirmationRepetitions(after repetitions: Int) -> Int { 2 * repetitions }

    /// What the first round found slower and the confirmation round found slower again, by subject.
    package var confirmed: [TimeComparison.Subject] {
        guard let confirmation else { return [] }
        let again = Set(confirmation.slower.map(\.name))
        return first.slower.filter { again.contains($0.name) }
    }

    /// Found slower in the first round, and not again in the confirmation round: the machine's noise.
    package var notConfirmed: [TimeComparison.Subject] {
        let confirmed = Set(confirmed.map(\.name))
        return first.slower.filter { !confirmed.contains($0.name) }
    }
}
