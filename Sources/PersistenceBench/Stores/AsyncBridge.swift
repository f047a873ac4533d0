import Foundation

/// Waits on this thread for async work: the bridge from the workloads' synchronous calls to an async library.
///
/// The workloads call a store synchronously and wait for each answer. The work runs as a task that prefers an
/// executor of the bridge's own (one serial dispatch queue, on a thread outside Swift's concurrency pool), and so do
/// the default actors it calls: a caller that is itself a pool thread (a Swift Testing test, a package-benchmark
/// suite) blocks only itself, never the thread its answer needs. A library whose work runs on threads of its own
/// (an event loop) runs it there as before. Each wait costs a task's creation, a hop to the bridge's thread and a
/// wake-up of the waiting thread: `sqlite+async` measures it beside `sqlite` (docs/your-own-store.md).
public enum AsyncBridge {
    /// Runs `operation` as a task on the bridge's executor and returns its result, or throws its error, on this
    /// thread.
    public static func wait<Value: Sendable>(
        _ operation: @escaping @Sendable () async throws -> Value
    ) throws -> Value {
        let outcome = Outcome<Value>()
        Task(executorPreference: executor) { await outcome.settle(operation) }
        return try outcome.wait()
    }

    /// Starts `operation` as a task on the bridge's executor, without waiting: an `ItemFeed`'s producer.
    public static func start(_ operation: @escaping @Sendable () async -> Void) {
        Task(executorPreference: executor) { await operation() }
    }

    /// The executor every bridged task prefers.
    private static let executor = QueueExecutor()

    /// Runs jobs on one serial dispatch queue: a thread of its own whatever the concurrency pool is doing.
    private final class QueueExecutor: TaskExecutor {
        private let queue = DispatchQueue(label: "PersistenceBench.AsyncBridge")

        func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
        }
    }

    /// One task's result, handed to the thread that waits for it.
    private final class Outcome<Value: Sendable>: @unchecked Sendable {
        private let done = DispatchSemaphore(value: 0)
        // Written once by the task before `done` is signalled, read once by the waiter after.
        private var result: Result<Value, any Error>?

        func settle(_ operation: @Sendable () async throws -> Value) async {
            do { result = .success(try await operation()) } catch { result = .failure(error) }
            done.signal()
        }

        func wait() throws -> Value {
            done.wait()
            guard let result else { preconditionFailure("AsyncBridge: signalled without a result") }
            return try result.get()
        }
    }
}
