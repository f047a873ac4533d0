/// `limit-scan`: the machine's limit for `scan`.
///
/// Sums, eight bytes at a time, as many bytes as a `ByteLayoutStore` keeps for N items, from a plain in-memory array:
/// no decoding, no strings, no file.
///
/// The array holds the store's bytes for the first items, up to 256 MiB (far beyond any cache), and is summed
/// again until the total is reached, so that 100M items need no 16 GiB of memory.
package struct LimitScanWorkload: Workload {
    package init() {}
    package let name = "limit-scan"
    package let summary = "the read limit: sum as many bytes as the store keeps for N items from an in-memory array"
    package var fixture: Fixture? { nil }
    package var report: WorkloadReport { WorkloadReport(measuresMachine: true) }

    static let bufferLimit = 256 << 20

    package var capability: StoreCapability { .byteLayout }

    package func run(on store: any Store, context: WorkloadContext) throws -> WorkloadOutcome {
        // Untimed: the total, and the buffer's contents.
        var total = 0
        var buffer: [UInt8] = []
        try ItemBatches.forEachStoredBatch(in: store, for: name, context: context) { bytes, _ in
            total += bytes.count
            if buffer.count < Self.bufferLimit { buffer += bytes.prefix(Self.bufferLimit - buffer.count) }
        }
        buffer += repeatElement(0, count: (8 - buffer.count % 8) % 8)
        var sum: UInt64 = 0
        context.stopwatch.measure {
            var remaining = total
            buffer.withUnsafeBufferPointer { bytes in
                bytes.withMemoryRebound(to: UInt64.self) { words in
                    while remaining > 0 {
                        let count = min(words.count, (remaining + 7) / 8)
                        var partial: UInt64 = 0
                        for index in 0..<count { partial &+= words[index] }
                        sum &+= partial
                        remaining -= count * 8
                    }
                }
            }
        }
        context.progress.advance(by: context.scale)
        var digest = Digest()
        digest.add(total)
        digest.add(Int(truncatingIfNeeded: sum))
        return WorkloadOutcome(operations: context.scale, digest: digest)
    }

    package func digestAfterRun(of store: any Store) throws -> Digest { Digest() }
}
