import Foundation
import Synchronization

/// Every answer a workload digested, one line each, in order: what a re-ask of a disagreeing group records, so that
/// the first question whose answers differ can be named with both answers (`AnswerDifference`).
///
/// Recording is off (no trace) in every measured cell: a `Digest` made while a trace records, on the recording
/// thread, notes each answer it adds; nested digests (a page's) note their answers before the page's own line.
package final class AnswerTrace: Sendable {
    /// The most answers a trace keeps: `get`'s 100,000 questions and a scan of 200k items fit; past it, what was
    /// kept is compared and the trace says it was cut.
    package static let defaultLimit = 200_000

    package let limit: Int
    private let lines = Mutex<[String]>([])
    private let cut = Atomic<Bool>(false)

    package init(limit: Int = AnswerTrace.defaultLimit) {
        self.limit = limit
    }

    /// The answers noted, in order, up to `limit`.
    package var answers: [String] { lines.withLock { $0 } }
    /// Whether answers past `limit` were left out.
    package var wasCut: Bool { cut.load(ordering: .relaxed) }

    func note(_ answer: String) {
        lines.withLock { lines in
            if lines.count < limit { lines.append(answer) } else { cut.store(true, ordering: .relaxed) }
        }
    }

    /// Runs `body` with every `Digest` made on this thread (or in this task) noting its answers in `trace`; other
    /// threads' digests, a workload's reader threads' among them, note nothing.
    package static func recording<Value>(into trace: AnswerTrace, _ body: () throws -> Value) rethrows -> Value {
        recordings.add(1, ordering: .relaxed)
        defer { recordings.subtract(1, ordering: .relaxed) }
        return try $current.withValue(trace, operation: body)
    }

    /// The trace digests made here note into; nil (the rule) while nothing records: one relaxed load when nothing
    /// records anywhere in the process.
    static var active: AnswerTrace? {
        guard recordings.load(ordering: .relaxed) > 0 else { return nil }
        return current
    }
    @TaskLocal private static var current: AnswerTrace?
    private static let recordings = Atomic<Int>(0)
}
