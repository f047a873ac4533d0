/// `get` and `get-zipfian`: min(N, 100,000) primary-key lookups, keys uniform or scrambled-zipfian (0.99).
public struct GetWorkload: ItemWorkload {
    public enum KeyDistribution: Sendable {
        case uniform
        /// YCSB's scrambled zipfian with constant 0.99: a few keys are read very often.
        case zipfian
    }

    public let distribution: KeyDistribution

    public init(distribution: KeyDistribution) { self.distribution = distribution }

    public var name: String { distribution == .uniform ? "get" : "get-zipfian" }
    public var summary: String {
        switch distribution {
        case .uniform: "min(N, 100k) lookups by primary key, keys uniform over 1...N"
        case .zipfian: "min(N, 100k) lookups by primary key, keys scrambled-zipfian (YCSB, 0.99)"
        }
    }
    public var fixture: Fixture? { .items }

    public func run(on store: any ItemStore, context: WorkloadContext) throws -> WorkloadOutcome {
        let keys = Self.keys(count: min(context.scale, 100_000), context: context, distribution: distribution)
        var digest = Digest()
        for id in keys {
            let item = try context.stopwatch.measureOperation { try store.item(id: id) }
            if let item { digest.add(item) } else { digest.add(-1) }
            context.progress.advance(by: 1)
        }
        return WorkloadOutcome(operations: keys.count, digest: digest)
    }

    /// The lookup keys, generated before the timed phase.
    static func keys(count: Int, context: WorkloadContext, distribution: KeyDistribution) -> [Int64] {
        var rng = SplitMix64(seed: context.seed, stream: .getKeys, index: distribution == .uniform ? 0 : 1)
        switch distribution {
        case .uniform:
            return (0..<count).map { _ in 1 + Int64(rng.below(UInt64(context.scale))) }
        case .zipfian:
            let zipfian = ZipfianGenerator(count: context.scale)
            return (0..<count).map { _ in 1 + Int64(zipfian.next(using: &rng)) }
        }
    }
}
