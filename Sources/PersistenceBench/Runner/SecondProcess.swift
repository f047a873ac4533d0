import Foundation

/// What the second process of `two-processes` (the extension) is asked to do (`ChildRequest`): open the store the
/// app has open and commit items of its own, one durable commit each.
package struct SecondProcessJob: Codable, Sendable {
    package var store: String
    package var directory: String
    package var seed: UInt64
    /// The ids of its items, committed in order.
    package var ids: ClosedRange<Int64>
}

/// The app's side of the extension: a child of this tool, started and watched on a thread of its own while the
/// app goes on, its reply read when it ends.
final class SecondProcess: @unchecked Sendable {
    /// The longest the extension may run before it is stopped: far beyond any store's M durable commits.
    static let timeLimitSeconds = 600.0

    private let supervisor: ChildSupervisor
    /// Signalled once the extension has opened the store (or been refused, or ended).
    private let opened = DispatchSemaphore(value: 0)
    private let ended = DispatchSemaphore(value: 0)
    // Written by the watching thread before it signals `ended`, read after waiting for it.
    private var outcome: Result<ChildSupervisor.Outcome, any Error> = .failure(BenchError("never started"))

    private init(tool: String) {
        supervisor = ChildSupervisor(
            executable: tool,
            directory: FileManager.default.temporaryDirectory.appendingPathComponent(
                "persistbench-second-process-\(UUID().uuidString)"),
            pollMilliseconds: 10)
    }

    /// Starts the extension and returns once it has opened the store (or been refused it).
    static func start(_ job: SecondProcessJob, tool: String) throws -> SecondProcess {
        let process = SecondProcess(tool: tool)
        let thread = Thread { [process] in
            var signalled = false
            process.outcome = Result {
                try process.supervisor.run(.secondProcess(job)) { look in
                    if look.progress != nil && !signalled {
                        signalled = true
                        process.opened.signal()
                    }
                    return look.elapsedSeconds > timeLimitSeconds ? .stop(.timedOut) : .keepWatching
                }
            }
            if !signalled { process.opened.signal() }
            process.ended.signal()
        }
        thread.name = "second process"
        thread.start()
        process.opened.wait()
        return process
    }

    /// Waits for the extension to end: its commits, or its refused open.
    func finish() throws -> ProcessCommits {
        ended.wait()
        defer { try? FileSystem.remove(supervisor.directory) }
        let outcome = try outcome.get()
        switch outcome.reply {
        case .secondProcess(let commits)?:
            return commits
        case .failed(let error)?:
            throw BenchError("the second process failed: \(error)")
        default:
            let why = outcome.stopped.map { "\($0)" } ?? ChildSupervisor.crashMessage(at: supervisor.outputPath)
            throw BenchError("the second process ended without its figures: \(why ?? "\(outcome.ending)")")
        }
    }

    /// The extension's side (`ChildExecution`): opens the store, says so on the progress channel, commits its items
    /// and closes.
    ///
    /// A refused open is its answer, not an error. It stops early if its parent has gone.
    static func run(_ job: SecondProcessJob, stores: [StoreKind], progress: ProgressChannel?) throws -> ProcessCommits {
        let kind = try ChildExecution.kind(named: job.store, in: stores)
        let parent = getppid()
        let opened: any Store
        do {
            opened = try kind.open(URL(fileURLWithPath: job.directory))
        } catch let error as StoreInUse {
            return ProcessCommits(refusal: "\(error)", byLock: true)
        } catch {
            return ProcessCommits(refusal: "open failed: \(error)", byLock: false)
        }
        guard let store = opened as? any ItemStore else {
            try opened.close()
            throw BenchError("\(kind.name) stores no items")
        }
        progress?.send(0)
        var commits = try TwoProcessesWorkload.commit(
            job.ids, to: store, items: ItemGenerator(seed: job.seed), timedBy: nil, stop: { getppid() != parent })
        commits.lockWaits = (store as? any LockWaitCountingStore)?.lockWaits
        try store.close()
        return commits
    }
}
