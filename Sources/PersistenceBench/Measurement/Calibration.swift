import Foundation

/// A fixed CPU and memory loop, timed in every cell's process after its timed phase, so that a comparison of
/// two runs can tell a slower machine (or a busier one) from a slower store.
///
/// The loop does the same work on every machine: dependent, pseudo-random read-modify-writes over a 16 MiB
/// table (past the L2 cache of common cores, so both arithmetic and memory latency count), the mix of work a
/// store's hot path does. `persistbench compare` divides every time by its run's median calibration.
public enum Calibration {
    /// Table entries: 2 Mi × 8 bytes = 16 MiB.
    static let tableEntries = 1 << 21
    /// Read-modify-writes per round: about 16 ms on the 2-core VM of the README's results (each step waits for
    /// memory: about 120 ns).
    static let stepsPerRound = 1 << 17

    /// Seconds of one round: the median of `rounds` rounds, after the table's pages are touched (untimed).
    public static func measure(rounds: Int = 5) -> Double {
        var table = [UInt64](repeating: 0, count: tableEntries)
        var state: UInt64 = 0x5EED
        var times: [Double] = []
        table.withUnsafeMutableBufferPointer { table in
            for index in table.indices { table[index] = UInt64(index) }
            let mask = UInt64(tableEntries - 1)
            for _ in 0..<rounds {
                let start = monotonicNanoseconds()
                for _ in 0..<stepsPerRound {
                    // The next index depends on the value just read: no two steps overlap in the memory system.
                    let index = Int(truncatingIfNeeded: SplitMix64.mix(state) & mask)
                    state = table[index] &+ state &+ 0x9E37_79B9_7F4A_7C15
                    table[index] = state
                }
                times.append(Double(monotonicNanoseconds() - start) / 1e9)
            }
        }
        // Keeps the loop from being optimised away: the final state is used.
        if state == 0 { times.append(0) }
        return times.sorted()[times.count / 2]
    }
}
