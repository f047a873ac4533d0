import Foundation
import PersistenceBench

/// `files+worker`: `files` with every call handed to a thread of the store's own and waited for, as a driver with an
/// event loop (SQLiteNIO's futures waited on with `.wait()`) or a connection pool's worker does.
///
/// The same files and answers as `files`; what differs is the hand-off: a condition variable to wake the worker, a
/// semaphore to wake the caller. Whether each hand-off needs a futex call, and gives up the CPU, depends on how the
/// two threads are scheduled (by what else the machine runs, under valgrind), so its kind declares system calls and
/// waits scheduling-dependent: the counter check shows them and judges the rest, within the range its baseline's 3
/// repetitions measured. With `FILEBENCH_EXTRA_QUERY` set in the environment, every lookup reads its item's file twice:
/// the regression CI injects to show that the gate still fails on one.
public final class WorkerFileItemStore: ItemStore, IntegrityCheckingStore {
    public static let kind = StoreKind(
        name: "files+worker",
        summary: "files, with every call handed to the store's own thread and waited for (Examples/FileStore: a "
            + "threaded store, as a driver with an event loop is)",
        durability: "as files, on the worker thread",
        promise: .everyCommit,
        configuration: "as files; one worker thread per store, woken by a condition variable, answering by a semaphore",
        engine: { "Foundation's JSONEncoder, a file per item, on a worker thread" },
        schedulingDependent: [
            .systemCalls: handOff + " (get 2k: 13.28 a lookup in each of a baseline's 3 repetitions, 12.00–13.28 in "
                + "10 checks, some beside a build)",
            .voluntaryWaits: handOff + " (get 2k: 2.08–2.20 a lookup in the baseline, 1.64–2.12 in the checks)",
        ],
        type: WorkerFileItemStore.self,
        open: { try WorkerFileItemStore(directory: $0) })

    /// Why its system calls and waits depend on scheduling, for its kind.
    private static let handOff =
        "a call's hand-off to the worker and back needs a futex call, and a wait, or not, as valgrind schedules the two "
        + "threads: the load beside the count moves them"

    let files: FileItemStore
    let worker: Worker
    let extraQuery = ProcessInfo.processInfo.environment["FILEBENCH_EXTRA_QUERY"] != nil

    init(directory: URL) throws {
        files = try FileItemStore(directory: directory)
        worker = Worker()  // started once the files opened: an open that throws leaves no thread behind
    }

    deinit { worker.stop() }

    public func close() throws {
        try worker.run { try files.close() }
        worker.stop()
    }

    public func insert(_ batch: [Item]) throws { try worker.run { try files.insert(batch) } }
    public func insertDurably(_ item: Item) throws { try worker.run { try files.insertDurably(item) } }
    public func update(_ updates: [ItemUpdate]) throws { try worker.run { try files.update(updates) } }
    public func delete(ids: [Int64]) throws { try worker.run { try files.delete(ids: ids) } }

    public func item(id: Int64) throws -> Item? {
        try worker.run {
            if extraQuery { _ = try files.item(id: id) }
            return try files.item(id: id)
        }
    }

    /// Every item, read and handed to `body` on the worker thread, one at a time, while the caller waits.
    public func forEachItem(_ body: (Item) throws -> Void) throws { try worker.run { try files.forEachItem(body) } }
    public func count(where filter: ItemFilter) throws -> Int { try worker.run { try files.count(where: filter) } }
    public func count(pricedIn range: PriceRange) throws -> Int { try worker.run { try files.count(pricedIn: range) } }
    public func page(_ query: ItemPageQuery) throws -> [Item] { try worker.run { try files.page(query) } }
    public func items(startingAt id: Int64, limit: Int) throws -> [Item] {
        try worker.run { try files.items(startingAt: id, limit: limit) }
    }

    public func checkIntegrity() throws { try worker.run { try files.checkIntegrity() } }
    public var recoveryNotes: [String] { files.recoveryNotes }
    public static func storeFiles(in directory: URL, kind: String) -> StoreFiles {
        FileItemStore.storeFiles(in: directory, kind: kind)
    }
}

/// One thread that runs one job at a time for its callers, each of whom waits for its job's answer.
final class Worker: @unchecked Sendable {
    private let condition = NSCondition()
    /// Held by a caller from handing its job over to taking its answer: one job at a time.
    private let callers = NSLock()
    /// The job waiting for the thread, and what its caller waits on; guarded by `condition`.
    private var pending: (work: () -> Void, done: DispatchSemaphore)?
    private var stopped = false

    init() {
        let thread = Thread { [self] in serve() }
        thread.name = "files+worker"
        thread.start()
    }

    /// Runs `body` on the worker thread and returns its answer, or throws its error.
    func run<T>(_ body: () throws -> T) throws -> T {
        callers.lock()
        defer { callers.unlock() }
        return try withoutActuallyEscaping(body) { body in
            let done = DispatchSemaphore(value: 0)
            var result: Result<T, any Error> = .failure(FileStoreError("the worker thread had stopped"))
            condition.lock()
            if !stopped {
                pending = ({ result = Result(catching: body) }, done)
                condition.signal()
            } else {
                done.signal()
            }
            condition.unlock()
            done.wait()
            return try result.get()
        }
    }

    /// Ends the thread once it has no job; a call after it throws.
    func stop() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }

    private func serve() {
        while true {
            condition.lock()
            while pending == nil, !stopped { condition.wait() }
            var work = pending?.work
            let done = pending?.done
            pending = nil
            condition.unlock()
            guard let done else { return }
            work?()
            work = nil  // the caller's closure released before the caller returns: it must not outlive the call
            done.signal()
        }
    }
}
