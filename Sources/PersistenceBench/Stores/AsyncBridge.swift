import Foundation

/// Waits on this thread for async work: the bridge from the workloads' synchronous calls to an async library.
///
/// The workloads call a store synchronously and wait for each answer. `wait` runs the work as a task whose preferred
/// executor is the waiting thread itself: the task's jobs, and those of the default actors it calls, run on the
/// thread that waits, so an answer that needs no other thread costs no thread switch and no wake-up (on an idle
/// virtual machine a wake-up across threads cost 66 µs a call; `sqlite+async` measures what is left beside `sqlite`,
/// docs/your-own-store.md). A library whose work runs on threads of its own (an event loop) runs it there, and its
/// answer wakes the waiting thread. A caller that is itself a thread of Swift's concurrency pool (a Swift Testing
/// test, a package-benchmark suite) blocks only itself. `start` runs a producer beside the caller instead, on a serial
/// dispatch queue of its own.
///
/// Limits: child tasks inherit the preference, so a task group's children run one after another on the waiting
/// thread, not in parallel (an unstructured `Task {}` goes to the pool); an actor shared by several waiting threads
/// runs, uncontended, on its caller's thread, and otherwise on the thread that holds it; and a scan's body must not
/// call the store it scans while the store's producer holds the store (an actor whose `forEachItem(into:)` waits in
/// `ItemFeed.yield`): the producer waits for the body, the body for the actor.
public enum AsyncBridge {
    /// Runs `operation` as a task on this thread and returns its result, or throws its error.
    public static func wait<Value: Sendable>(
        _ operation: @escaping @Sendable () async throws -> Value
    ) throws -> Value {
        let executor = CallerExecutor()
        let outcome = Outcome<Value>()
        Task(executorPreference: executor) {
            await outcome.settle(operation)
            executor.finish()
        }
        executor.runJobs()
        return try outcome.get()
    }

    /// Starts `operation` as a task beside the caller, without waiting: an `ItemFeed`'s producer, which fills the
    /// feed while this thread drains it.
    public static func start(_ operation: @escaping @Sendable () async -> Void) {
        // A queue per producer: a producer that waits for its reader (a full feed) never holds up another's.
        Task(executorPreference: QueueExecutor()) { await operation() }
    }

    /// Runs jobs on a serial dispatch queue of its own: a thread whatever the concurrency pool is doing.
    private final class QueueExecutor: TaskExecutor {
        private let queue = DispatchQueue(label: "PersistenceBench.AsyncBridge")

        func enqueue(_ job: consuming ExecutorJob) { enqueue(UnownedJob(job)) }

        func enqueue(_ job: UnownedJob) {
            queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
        }
    }

    /// Runs the jobs of one `wait` on the thread that waits, until its task has finished.
    private final class CallerExecutor: TaskExecutor, @unchecked Sendable {
        // `jobs`, `finished` and `waiting` are read and written with `condition` locked.
        private let condition = NSCondition()
        private var jobs: [UnownedJob] = []
        private var finished = false
        private var waiting = true
        /// Where jobs go once the caller has stopped waiting; made for the first such job.
        private var afterWaiting: QueueExecutor?

        func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            condition.lock()
            guard waiting else {
                // The caller has its answer and has gone: a late job (a task's teardown) runs beside it.
                let queue = afterWaiting ?? QueueExecutor()
                afterWaiting = queue
                condition.unlock()
                queue.enqueue(job)
                return
            }
            jobs.append(job)
            condition.signal()
            condition.unlock()
        }

        /// Ends the wait once the jobs taken so far have run: called by the task when its operation has settled.
        func finish() {
            condition.lock()
            finished = true
            condition.signal()
            condition.unlock()
        }

        /// Runs jobs as they come, on this thread, until `finish`.
        func runJobs() {
            var batch: [UnownedJob] = []
            while true {
                condition.lock()
                while jobs.isEmpty && !finished { condition.wait() }
                if jobs.isEmpty {
                    waiting = false
                    condition.unlock()
                    return
                }
                swap(&batch, &jobs)
                condition.unlock()
                for job in batch { job.runSynchronously(on: asUnownedTaskExecutor()) }
                batch.removeAll(keepingCapacity: true)
            }
        }
    }

    /// One task's result, handed to the thread that waits for it.
    private final class Outcome<Value: Sendable>: @unchecked Sendable {
        // Written once by the task before its executor finishes, read once by the waiter after.
        private var result: Result<Value, any Error>?

        func settle(_ operation: @Sendable () async throws -> Value) async {
            do { result = .success(try await operation()) } catch { result = .failure(error) }
        }

        func get() throws -> Value {
            guard let result else { preconditionFailure("AsyncBridge: the task finished without a result") }
            return try result.get()
        }
    }
}
