import Foundation

/// Fixed probes of the machine, timed in every cell's process after its timed phase, as context for a reader of its
/// results (results.csv): a CPU and memory loop, and a durable write, which tell how fast the machine was while
/// the cell ran.
///
/// No check judges by them: `check --base` times two builds in turn on one machine, and `check --counters` judges
/// counts no machine changes.
///
/// The loop does the same work on every machine: dependent, pseudo-random read-modify-writes over a 16 MiB
/// table (past the L2 cache of common cores, so both arithmetic and memory latency count), the mix of work a
/// store's hot path does.
package enum Calibration {
    /// Table entries: 2 Mi × 8 bytes = 16 MiB.
    static let tableEntries = 1 << 21
    /// Read-modify-writes per round: about 16 ms on the 2-core VM of the README's results (each step waits for
    /// memory: about 120 ns).
    static let stepsPerRound = 1 << 17

    /// Seconds of one round, after the table's pages are touched (untimed).
    ///
    /// One round, not the median of several: a run's probe is the median over its cells, which already discards the
    /// rounds a preemption lengthened, and each further round cost every cell about 20 ms (two more rounds: 24 s, 7 %
    /// of the default run).
    package static func measure() -> Double {
        // Written once, entry i holding i (not zeroed first: a second pass over 16 MiB cost each cell 2–3 ms).
        var table = [UInt64](unsafeUninitializedCapacity: tableEntries) { buffer, count in
            for index in 0..<tableEntries { buffer.initializeElement(at: index, to: UInt64(index)) }
            count = tableEntries
        }
        var state: UInt64 = 0x5EED
        var seconds = 0.0
        table.withUnsafeMutableBufferPointer { table in
            let mask = UInt64(tableEntries - 1)
            let start = monotonicNanoseconds()
            for _ in 0..<stepsPerRound {
                // The next index depends on the value just read: no two steps overlap in the memory system.
                let index = Int(truncatingIfNeeded: SplitMix64.mix(state) & mask)
                state = table[index] &+ state &+ 0x9E37_79B9_7F4A_7C15
                table[index] = state
            }
            seconds = secondsSince(start)
        }
        // Keeps the loop from being optimised away: the final state is used.
        if state == 0 { seconds += .leastNonzeroMagnitude }
        return seconds
    }

    /// Seconds of one durable write: the median over `rounds` of appending 4 KiB to a new file in `directory` and
    /// `fdatasync`-ing it, after one untimed round that creates the file.
    ///
    /// Each append grows the file, so each sync also commits the file's new size, as a store's commit that appends to
    /// its log or data file does.
    ///
    /// - Throws: `BenchError` when the file cannot be written or flushed.
    package static func measureSync(in directory: URL, rounds: Int = 16) throws -> Double {
        let file = directory.appendingPathComponent(".sync-probe")
        defer { try? FileSystem.remove(file) }
        var times: [Double] = []
        let block = [UInt8](repeating: 0xA5, count: 4096)
        try FileSystem.withDescriptor(of: file, flags: O_WRONLY | O_CREAT | O_TRUNC) { descriptor in
            for round in 0...rounds {
                let start = monotonicNanoseconds()
                try block.withUnsafeBytes {
                    try FileSystem.write($0, to: descriptor, at: round * block.count, path: file.path)
                }
                guard fdatasync(descriptor) == 0 else {
                    throw BenchError.system("flushing \(file.path)")
                }
                if round > 0 { times.append(secondsSince(start)) }
            }
        }
        return times.sorted()[times.count / 2]
    }
}
