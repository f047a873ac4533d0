import Foundation
import Histogram
import Synchronization

/// K readers, each on a thread of its own with a reader of its own (`QueryReader`), asking their questions (lookups,
/// pages or keystrokes: `ReaderQuestion`) back to back (closed loop: the next read starts when the last one
/// answered), started together.
///
/// Each read is timed from its start and its answer kept as a one-answer digest.
///
/// Beside a writer (`alongside`, run on the calling thread once every reader is about to read), each reader asks its
/// questions at least once and then goes on asking them again from the first until the writer has finished, so that
/// every commit of the writer has every reader beside it; the reads that started while the writer ran are the
/// ones "beside the writer" (`window`). Alone, the caller waits instead of writing, and the reads in that window
/// are the readers' alone, every reader reading throughout. A later pass keeps no list: each answer is checked against the first pass's
/// as it comes, and the reads that started in the window are counted into a histogram, so that a fast store's
/// millions of reads beside a slow writer cost the harness no memory.
package struct ClosedLoopReads {
    /// One reader thread's reads.
    package struct Thread {
        /// The first pass, in order: each read's start (monotonic nanoseconds), latency (nanoseconds) and answer as
        /// a one-answer digest.
        package var starts: [UInt64] = []
        package var latencies: [UInt64] = []
        package var answers: [Digest] = []
        /// The later passes' reads that started while the writer ran, and their latencies.
        package var laterReads = 0
        package var laterLatencies = Stopwatch.histogram()
    }

    package var threads: [Thread]

    /// Runs one thread per reader, reader `i` asking `questions[i]`, beside `alongside` on the calling thread (the
    /// writer, or a wait for the readers alone): returns their reads, its result, and the window it ran in.
    ///
    /// The readers are the caller's: made before and closed after.
    package static func run<T>(
        readers: [any QueryReader], questions: [[ReaderQuestion]], alongside: () throws -> T
    ) throws -> (reads: ClosedLoopReads, result: T, window: Range<UInt64>) {
        precondition(readers.count == questions.count && !readers.isEmpty && questions.allSatisfy { !$0.isEmpty })
        let control = Control(readers: readers.count)
        let threads = zip(readers, questions).enumerated().map { index, pair in
            ReaderThread(index: index, reader: pair.0, questions: pair.1, control: control)
        }
        for thread in threads { thread.start() }
        control.waitUntilReady()
        control.writerRunning.store(true, ordering: .sequentiallyConsistent)
        // The window opens as the readers are let go, so that their first passes are in it: a fast store's first
        // pass would otherwise be over before a window opened after it, and only its repeats judged.
        let start = monotonicNanoseconds()
        control.windowStart.store(start, ordering: .sequentiallyConsistent)
        control.go()
        control.waitUntilReading()
        let result: T
        do {
            result = try alongside()
        } catch {
            control.stopped.store(true, ordering: .relaxed)
            control.writerRunning.store(false, ordering: .sequentiallyConsistent)
            for thread in threads { _ = thread.join() }
            throw error
        }
        let window = start..<monotonicNanoseconds()
        control.writerRunning.store(false, ordering: .sequentiallyConsistent)
        return (ClosedLoopReads(threads: try threads.map { try $0.join().get() }), result, window)
    }

    /// The reads that started in `window`: how many, per second of the window (all threads, and each thread's own),
    /// and their latencies.
    package func figures(in window: Range<UInt64>) -> ReadFigures {
        let seconds = max(Double(window.upperBound - window.lowerBound) / 1e9, 1e-9)
        let counts = threads.map { thread in thread.starts.count { window.contains($0) } + thread.laterReads }
        let perThread = counts.map { Double($0) / seconds }.sorted()
        var latencies = Stopwatch.histogram()
        var firstPass = Stopwatch.histogram()
        var firstPassReads = 0
        for thread in threads {
            for (start, latency) in zip(thread.starts, thread.latencies) where window.contains(start) {
                _ = latencies.record(Swift.max(latency, 1))
                _ = firstPass.record(Swift.max(latency, 1))
                firstPassReads += 1
            }
            latencies.add(thread.laterLatencies)
        }
        let total = counts.reduce(0, +)
        var figures = ReadFigures(
            reads: total, readsPerSecond: Double(total) / seconds, slowestThread: perThread.first ?? 0,
            medianThread: perThread.isEmpty ? 0 : perThread[perThread.count / 2], fastestThread: perThread.last ?? 0,
            latency: LatencySummary(latencies))
        figures.firstPassReads = firstPassReads
        figures.firstPassLatency = LatencySummary(firstPass)
        return figures
    }
}

/// One question a reader thread asks: a lookup by id, a page, or a keystroke of a search.
package enum ReaderQuestion: Equatable, Sendable {
    case get(Int64)
    case page(ItemPageQuery)
    case search(TitleSearch)

    /// The reader's answer as a one-answer digest: the item, the page's items, or the count and the page.
    func answer(from reader: any QueryReader) throws -> Digest {
        var digest = Digest()
        switch self {
        case .get(let id): digest.add(answer: try reader.item(id: id))
        case .page(let query): digest.add(Digest(try reader.page(query)))
        case .search(let search):
            let answer = try reader.search(search)
            digest.add(answer.count)
            digest.add(Digest(answer.page))
        }
        return digest
    }
}

/// Reads at one level of readers, alone or beside a writer (`ClosedLoopReads.figures(in:)`).
package struct ReadFigures: Codable, Equatable, Sendable {
    /// The reads that started in the window: while the writer ran, or while the readers read alone.
    package var reads: Int
    /// All readers together, per second.
    package var readsPerSecond: Double
    /// One reader's own reads per second: the slowest, the median and the fastest thread.
    package var slowestThread: Double
    package var medianThread: Double
    package var fastestThread: Double
    /// Per read, every thread's.
    package var latency: LatencySummary?
    /// The reads of each thread's first pass over its questions that started in the window, and their latency:
    /// each a first touch of its key, page or keystroke, where a later pass asks again what the first warmed.
    ///
    /// Nil in results recorded before 2026-12-02.
    package var firstPassReads: Int?
    package var firstPassLatency: LatencySummary?

    package init(
        reads: Int, readsPerSecond: Double, slowestThread: Double, medianThread: Double, fastestThread: Double,
        latency: LatencySummary?
    ) {
        self.reads = reads
        self.readsPerSecond = readsPerSecond
        self.slowestThread = slowestThread
        self.medianThread = medianThread
        self.fastestThread = fastestThread
        self.latency = latency
    }
}

/// What the caller and its reader threads share: the start line, the writer's state, a stop on failure.
private final class Control: Sendable {
    private let ready = DispatchSemaphore(value: 0)
    private let start = DispatchSemaphore(value: 0)
    private let reading = DispatchSemaphore(value: 0)
    private let readers: Int
    /// While set, a reader that has asked its questions once goes on asking them.
    let writerRunning = Atomic<Bool>(false)
    /// Set when the writer failed: every reader stops after its current read.
    let stopped = Atomic<Bool>(false)
    /// When the writer started, monotonic nanoseconds; 0 before.
    let windowStart = Atomic<UInt64>(0)

    init(readers: Int) { self.readers = readers }

    func signalReady() { ready.signal() }
    func waitForStart() { start.wait() }
    func signalReading() { reading.signal() }

    /// Until every reader is past the start line, about to read: the writer starts beside all of them.
    func waitUntilReading() {
        for _ in 0..<readers { reading.wait() }
    }

    func waitUntilReady() {
        for _ in 0..<readers { ready.wait() }
    }

    func go() {
        for _ in 0..<readers { start.signal() }
    }
}

/// One reader's thread: owns the reader while it runs; `join` hands back its reads or its error.
private final class ReaderThread: @unchecked Sendable {
    // Written by the reader's thread before it signals `finished`, read by the caller after waiting for it.
    private let index: Int
    private let reader: any QueryReader
    private let questions: [ReaderQuestion]
    private let control: Control
    private var outcome: Result<ClosedLoopReads.Thread, any Error> = .failure(BenchError("the reader did not run"))
    private let finished = DispatchSemaphore(value: 0)

    init(index: Int, reader: any QueryReader, questions: [ReaderQuestion], control: Control) {
        self.index = index
        self.reader = reader
        self.questions = questions
        self.control = control
    }

    func start() {
        let thread = Foundation.Thread { [self] in
            control.signalReady()
            control.waitForStart()
            control.signalReading()
            outcome = Result { try read() }
            finished.signal()
        }
        thread.name = "reader \(index + 1)"
        thread.start()
    }

    func join() -> Result<ClosedLoopReads.Thread, any Error> {
        finished.wait()
        return outcome
    }

    private func read() throws -> ClosedLoopReads.Thread {
        var reads = ClosedLoopReads.Thread()
        reads.starts.reserveCapacity(questions.count)
        reads.latencies.reserveCapacity(questions.count)
        reads.answers.reserveCapacity(questions.count)
        var index = 0
        while index < questions.count || control.writerRunning.load(ordering: .sequentiallyConsistent) {
            if control.stopped.load(ordering: .relaxed) { throw BenchError("the reader stopped: the writer failed") }
            let start = monotonicNanoseconds()
            let answer = try questions[index % questions.count].answer(from: reader)
            let end = monotonicNanoseconds()
            if index < questions.count {
                reads.starts.append(start)
                reads.latencies.append(end - start)
                reads.answers.append(answer)
            } else {
                guard answer == reads.answers[index % questions.count] else {
                    throw BenchError(
                        "reader \(self.index + 1), read \(index + 1) (\(questions[index % questions.count])) answered "
                            + "differently from its first pass")
                }
                let windowStart = control.windowStart.load(ordering: .sequentiallyConsistent)
                if windowStart != 0, start >= windowStart {
                    reads.laterReads += 1
                    _ = reads.laterLatencies.record(max(end - start, 1))
                }
            }
            index += 1
        }
        return reads
    }
}
