/// `scan`: iterates every item, decoded into `Item` values, in id order.
package struct ScanWorkload: ItemWorkload {
    package init() {}
    package let name = "scan"
    package let summary = "iterate all N items as typed values, in id order (the digest is computed in the loop)"
    package var fixture: Fixture? { .items }
    package var report: WorkloadReport {
        WorkloadReport(machineLimit: MachineLimit(LimitScanWorkload(), "as many bytes summed from an in-memory array"))
    }

    package func run(on store: any ItemStore, context: WorkloadContext) throws -> WorkloadOutcome {
        // The digest is folded in inside the timed loop: a scan whose values nobody reads could skip decoding.
        // Its cost is the same for every store: about 420 instructions per item of the generated data (callgrind,
        // release build; one multiply-and-rotate per field and per 8 bytes of text, about 25 per item), and the
        // `memory` store's scan shows the whole harness floor beside every store's.
        var digest = Digest()
        let progress = context.progress
        try context.stopwatch.measure {
            try store.forEachItem { item in
                digest.add(item)
                if digest.count & 0xFFFF == 0 { progress.advance(by: 0x10000) }
            }
        }
        // The fixture holds exactly N items: a scan that reads another number answers wrongly, whatever the digest
        // of a store alone in its group would say.
        guard digest.count == context.scale || !context.checksAnswers else {
            throw BenchError("scan read \(digest.count) items; the store was loaded with \(context.scale)")
        }
        return WorkloadOutcome(operations: digest.count, digest: digest)
    }
}
