import Foundation

/// A counter the counter gate judges by a band that a store's design can make depend on how threads are scheduled:
/// a store that hands each call to a thread of its own (a driver's event loop, a connection pool's worker) needs a
/// futex, and gives up the CPU, at a hand-off or not as valgrind happens to schedule the two threads.
///
/// A `StoreKind` declares such counters with its reason (`schedulingDependent`); the check then shows them and does not
/// judge them.
public enum SchedulingDependentCounter: String, CaseIterable, Codable, Sendable {
    /// System calls per operation, the allocator's left out.
    case systemCalls = "system calls/op"
    /// Voluntary context switches per operation: waits that gave up the CPU.
    case voluntaryWaits = "voluntary waits/op"
    /// Minor page faults per operation: a thread's stack and what it first touches.
    case minorFaults = "minor faults/op"
    /// Allocations per operation, for a library that allocates per hand-off between its threads (SwiftNIO's
    /// promises and tasks): how many hand-offs a call takes follows the scheduling. Instructions are still judged.
    case allocations = "allocations/op"
}

extension CounterComparison {
    /// A counter's range over a baseline cell's repetitions, widened each way by `Bands.spreadMargin` of itself:
    /// what the baseline measured it move by, so that the check allows it where the fixed band is narrower.
    ///
    /// Made only from `Bands.spreadRepetitions` repetitions or more (two say little about a range), and never narrower
    /// than the fixed band, which still judges first.
    struct Spread {
        let low: Double
        let high: Double
        let measured: ClosedRange<Double>
        let repetitions: Int

        /// Nil for fewer repetitions than `bands.spreadRepetitions`, or none that moved.
        init?(_ values: [Double], bands: Bands) {
            guard values.count >= bands.spreadRepetitions, let lowest = values.min(), let highest = values.max(),
                highest > lowest
            else { return nil }
            let margin = (highest - lowest) * bands.spreadMargin
            low = max(0, lowest - margin)
            high = highest + margin
            measured = lowest...highest
            repetitions = values.count
        }

        /// The fixed band's verdict, made "same" where `now` is inside the widened range.
        func judge(_ fixed: Verdict, now: Double) -> Verdict {
            switch fixed {
            case .worse where now <= high, .better where now >= low: .same
            default: fixed
            }
        }

        /// "allowed 1.29–10.16 (the baseline's 3 repetitions: 3.51–7.94, and ×0.5 that spread again each way)";
        /// nil where the range does not show at the counter's precision.
        func note(_ format: (Double) -> String, margin: Double) -> String? {
            guard format(low) != format(high) else { return nil }
            return "allowed \(format(low))–\(format(high)) (the baseline's \(repetitions) repetitions: "
                + "\(format(measured.lowerBound))–\(format(measured.upperBound)), and ×"
                + String(format: "%g", margin) + " that spread again each way)"
        }
    }
}
