import Foundation
import Synchronization

/// Reads issued open-loop at a fixed rate on a thread of their own, each timed from its *intended* start
/// (`start + i / rate`), so that a reader stalled by a writer cannot hide the stall by issuing fewer reads:
/// coordinated omission avoided as wrk2 and YCSB's `measurement.interval=intended` avoid it.
///
/// A read whose intended start has passed is issued at once; the reader sleeps (`clock_nanosleep` to an absolute
/// time) only until the next intended start. Latencies therefore include the thread's wake-up after its sleep:
/// the `memory` store's reads alone show that floor.
package struct OpenLoopReads: Sendable {
    /// When each read was meant to start, monotonic nanoseconds.
    package var intendedStarts: [UInt64]
    /// Each read's latency from its intended start to its answer, nanoseconds.
    package var latencies: [UInt64]
    /// Each read's answer as a one-answer digest, in order: every phase must read the same.
    package var answers: [Digest]

    /// Reads `keys` through `reader` at `rate` reads per second on a new thread, starting now; waits until the
    /// thread has finished.
    ///
    /// `alongside` runs on the calling thread meanwhile (the writer), and its result is returned with the reads.
    package static func run<T>(
        keys: [Int64], rate: Double, reader: any ItemReader, alongside: () throws -> T
    ) throws -> (reads: OpenLoopReads, alongside: T) {
        let thread = ReaderThread(reader: reader, keys: keys, rate: rate)
        thread.start()
        let result: T
        do {
            result = try alongside()
        } catch {
            thread.stop()
            _ = thread.join()
            throw error
        }
        return (try thread.join().get(), result)
    }

    /// The percentiles of the latencies whose intended start is in `range` (all when nil), or nil if none is.
    package func latencySummary(startingIn range: Range<UInt64>? = nil) -> LatencySummary? {
        LatencySummary(
            nanoseconds: zip(intendedStarts, latencies).lazy.filter { range?.contains($0.0) ?? true }.map(\.1))
    }

    /// How many reads meant to start in `range` (all when nil) took longer than `nanoseconds`.
    package func count(slowerThan nanoseconds: UInt64, startingIn range: Range<UInt64>? = nil) -> Int {
        zip(intendedStarts, latencies).count { (range?.contains($0.0) ?? true) && $0.1 > nanoseconds }
    }
}

/// The reader's thread: owns the reader while it runs; `join` hands back its reads or its error.
private final class ReaderThread: @unchecked Sendable {
    // Written by the reader's thread before it signals `finished`, read by the caller after waiting for it.
    private let reader: any ItemReader
    private let keys: [Int64]
    private let rate: Double
    private var outcome: Result<OpenLoopReads, any Error> = .failure(BenchError("the reader did not run"))
    private let finished = DispatchSemaphore(value: 0)
    private let stopped = Atomic<Bool>(false)

    init(reader: any ItemReader, keys: [Int64], rate: Double) {
        self.reader = reader
        self.keys = keys
        self.rate = rate
    }

    func start() {
        let thread = Thread { [self] in
            outcome = Result { try read() }
            finished.signal()
        }
        thread.name = "open-loop reader"
        thread.start()
    }

    /// Asks the thread to stop after its current read (the writer failed).
    func stop() { stopped.store(true, ordering: .relaxed) }

    func join() -> Result<OpenLoopReads, any Error> {
        finished.wait()
        return outcome
    }

    private func read() throws -> OpenLoopReads {
        let interval = 1e9 / rate
        var reads = OpenLoopReads(intendedStarts: [], latencies: [], answers: [])
        reads.intendedStarts.reserveCapacity(keys.count)
        reads.latencies.reserveCapacity(keys.count)
        reads.answers.reserveCapacity(keys.count)
        let start = monotonicNanoseconds()
        for (index, id) in keys.enumerated() {
            if stopped.load(ordering: .relaxed) { throw BenchError("the reader stopped: the writer failed") }
            let intended = start + UInt64(Double(index) * interval)
            Self.sleep(until: intended)
            let item = try reader.item(id: id)
            let end = monotonicNanoseconds()
            var answer = Digest()
            if let item { answer.add(item) } else { answer.add(-1) }
            reads.intendedStarts.append(intended)
            reads.latencies.append(end - intended)
            reads.answers.append(answer)
        }
        return reads
    }

    private static func sleep(until deadline: UInt64) {
        guard monotonicNanoseconds() < deadline else { return }
        var time = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &time, nil) == EINTR {}
    }
}
