import Foundation

/// The time check's judgement, in two rounds. A first interleaved round is judged (`TimeComparison`); on a shared
/// machine a burst of a neighbour's work during one store's cells can put that store's interval above 1 by chance
/// (CI's host read an unchanged `memory` ×1.18 [1.03–1.37] once, where this one read it ×0.95–×1.03 four times).
/// So whatever the first round finds slower is timed again in a confirmation round: only the stores concerned,
/// twice the repetitions, the current build first in odd repetitions (the first round put the base first), in new
/// processes. A regression is what both rounds find slower; a check that compared no cell at all is one without a
/// second round (a base that cannot run this build's cells is no noise).
package struct TimeCheck: Sendable {
    package var first: TimeComparison
    /// Nil when the first round found nothing slower.
    package var confirmation: TimeComparison?

    package init(first: TimeComparison, confirmation: TimeComparison?) {
        self.first = first
        self.confirmation = confirmation
    }

    /// The stores a confirmation round must time again, in the first round's order: every store of every subject
    /// it found slower. Empty when it found nothing slower.
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
