import Foundation

/// `limit-write`: the machine's limit for `insert`.
///
/// The bytes a `ByteLayoutStore` keeps for N items, appended to one plain file and flushed with one `fdatasync` per
/// batch: no header, no index, no second file.
package struct LimitWriteWorkload: Workload {
    package init() {}
    package let name = "limit-write"
    package let summary =
        "the write limit: the bytes the store keeps for N items, appended to one file, fdatasync per batch"
    package var fixture: Fixture? { nil }
    package var report: WorkloadReport { WorkloadReport(measuresMachine: true) }

    package var capability: StoreCapability { .byteLayout }

    package func run(on store: any Store, context: WorkloadContext) throws -> WorkloadOutcome {
        guard let directory = (store as? any ByteLayoutStore)?.directory else {
            throw BenchError("workload \(name) needs a store with a byte layout; \(type(of: store)) has none")
        }
        let path = directory.appendingPathComponent("limit-write.bin").path
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw BenchError.system("cannot create \(path)") }
        defer {
            close(descriptor)
            unlink(path)
        }
        var written = 0
        try ItemBatches.forEachStoredBatch(in: store, for: name, context: context) { bytes, items in
            try context.stopwatch.measure {
                try bytes.withUnsafeBytes { try FileSystem.write($0, to: descriptor, at: written, path: path) }
                guard fdatasync(descriptor) == 0 else {
                    throw BenchError.system("flushing \(path)")
                }
            }
            written += bytes.count
            context.progress.advance(by: items)
        }
        var digest = Digest()
        digest.add(written)
        return WorkloadOutcome(operations: context.scale, digest: digest)
    }

    package func digestAfterRun(of store: any Store) throws -> Digest { Digest() }
}
