import Foundation
import Synchronization

/// Every answer a workload digested, one line each, in order: what a re-ask of a disagreeing group records, so that
/// the first question whose answers differ can be named with both answers (`AnswerDifference`).
///
/// Recording is off (no trace) in every measured cell: while a trace records, every item, record and folded digest a
/// `Digest` adds on the recording thread is noted (a page's items before the page's own line); plain numbers and
/// texts are not (`Digest.note`).
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

    /// Runs `body` with every answer a `Digest` adds on this thread (or in this task) noted in `trace`; other threads'
    /// digests, a workload's reader threads' among them, note nothing.
    package static func recording<Value>(into trace: AnswerTrace, _ body: () throws -> Value) rethrows -> Value {
        recordings.withLock { count in
            count += 1
            anyRecording = true
        }
        defer {
            recordings.withLock { count in
                count -= 1
                anyRecording = count > 0
            }
        }
        return try $current.withValue(trace, operation: body)
    }

    /// Whether a trace records anywhere in the process: what a digest's add reads first, a plain load of a flag set
    /// at compile time (no lazy initialisation, no atomic), written only under `recordings`' lock.
    ///
    /// A thread that reads it stale reads the task-local next and finds no trace of its own.
    nonisolated(unsafe) static var anyRecording = false
    /// The trace a digest's answers on this thread note into; nil (the rule) where nothing records.
    static var active: AnswerTrace? { current }
    @TaskLocal private static var current: AnswerTrace?
    private static let recordings = Mutex<Int>(0)
}
