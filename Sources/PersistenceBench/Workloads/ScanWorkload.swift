/// `scan`: iterates every item, decoded into `Item` values, in id order.
public struct ScanWorkload: ItemWorkload {
    public init() {}
    public let name = "scan"
    public let summary = "iterate all N items as typed values, in id order (the digest is computed in the loop)"
    public var fixture: Fixture? { .items }

    public func run(on store: any ItemStore, context: WorkloadContext) throws -> WorkloadOutcome {
        // The digest is folded in inside the timed loop: a scan whose values nobody reads could skip decoding.
        // Its cost (a few ns per item) is the same for every store.
        var digest = Digest()
        let progress = context.progress
        try context.stopwatch.measure {
            try store.forEachItem { item in
                digest.add(item)
                if digest.count & 0xFFFF == 0 { progress.advance(by: 0x10000) }
            }
        }
        return WorkloadOutcome(operations: digest.count, digest: digest)
    }
}
