/// How long a workload that asks one question after another may go on (`--time-box`): it stops asking once the box
/// has passed and it has asked `minimumOperations`, and reports what it did. A workload whose every operation costs
/// O(N) (a durable insert into `json`) would otherwise take hours where the others take seconds.
///
/// A time-boxed cell did fewer operations than the others, so its digest is not compared with theirs: the workload
/// checks what the store holds against the generator instead, and the cell says it was time-boxed
/// (`CellMetrics.timeBoxed`).
public struct TimeBox: Sendable, Equatable {
    /// Nil: no box; every operation is done.
    public var seconds: Double?

    /// The fewest operations a boxed cell does, so that its median and p99 rest on enough samples.
    public static let minimumOperations = 200

    public static let none = TimeBox(seconds: nil)

    public init(seconds: Double?) { self.seconds = seconds }

    /// Starts the box now, at the start of the workload's loop.
    public func start() -> Running {
        Running(deadline: seconds.map { monotonicNanoseconds() + UInt64($0 * 1e9) })
    }

    /// A started box.
    public struct Running {
        let deadline: UInt64?

        /// Whether a loop that has done `done` operations asks another.
        public func allowsMore(after done: Int) -> Bool {
            guard let deadline, done >= TimeBox.minimumOperations else { return true }
            return monotonicNanoseconds() < deadline
        }
    }
}
