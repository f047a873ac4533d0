/// `get` and `get-zipfian`: min(N, 100,000) primary-key lookups, keys uniform or scrambled-zipfian (0.99); under a
/// time box (`--time-box`), the first lookups of that sequence, as many as the group's count (`TimeBox`).
///
/// `get`'s lookups come right after the open, as an app's first screen asks them: a mapped store faults in every page
/// it touches first. `get-warm` asks `get`'s lookups after an untimed pass over the same keys (`prepare`): the steady
/// state, whose faults and time the report sets beside `get`'s.
package struct GetWorkload: ItemWorkload, KeyedWorkload {
    package enum KeyDistribution: Sendable {
        case uniform
        /// YCSB's scrambled zipfian with constant 0.99: a few keys are read very often.
        case zipfian
    }

    package let distribution: KeyDistribution
    /// The lookups after an untimed pass over the same keys (`get-warm`); uniform keys only.
    let warm: Bool

    package init(distribution: KeyDistribution, warm: Bool = false) {
        precondition(!warm || distribution == .uniform, "get-warm asks get's uniform keys")
        self.distribution = distribution
        self.warm = warm
    }

    package var name: String { warm ? "get-warm" : distribution == .uniform ? "get" : "get-zipfian" }
    package var summary: String {
        switch distribution {
        case .uniform where warm:
            "get's lookups after an untimed pass over the same keys: the steady state, beside get's first lookups"
        case .uniform: "min(N, 100k) lookups by primary key, keys uniform over 1...N, right after the open"
        case .zipfian: "min(N, 100k) lookups by primary key, keys scrambled-zipfian (YCSB, 0.99)"
        }
    }
    package var fixture: Fixture? { .items }
    /// `get` against the same keys through the engine's C API alone.
    package var report: WorkloadReport {
        distribution == .uniform && !warm
            ? WorkloadReport(
                engineFloor: MachineLimit(EngineGetWorkload(), "get's keys through the engine's C API alone"))
            : WorkloadReport()
    }

    /// `get-warm`: every key the timed phase may ask (its group's count, or all), looked up once, untimed.
    package func prepare(_ store: any Store, context: WorkloadContext) throws {
        guard warm else { return }
        let items = try requireCapability(store, (any ItemStore).self, for: "workload \(name)")
        let keys = Self.keys(scale: context.scale, seed: context.seed, distribution: distribution)
        for key in keys.prefix(context.timeBox.stepLimit ?? keys.count) { _ = try items.item(id: key) }
    }

    package func run(on store: any ItemStore, context: WorkloadContext) throws -> WorkloadOutcome {
        let keys = Self.keys(scale: context.scale, seed: context.seed, distribution: distribution)
        return try context.askInTurn(keys, ask: store.item(id:)) { item, digest in
            digest.add(answer: item)
            return 1
        }
    }

    package var skewedKeys: Bool { distribution == .zipfian }

    package func keyTrace(scale: Int, seed: UInt64) -> [KeyDraw] {
        Self.keys(scale: scale, seed: seed, distribution: distribution).map { KeyDraw(line: "READ \($0)", drawn: $0) }
    }

    /// The min(N, 100,000) lookup keys of a store of `scale` items, generated before the timed phase.
    static func keys(scale: Int, seed: UInt64, distribution: KeyDistribution) -> [Int64] {
        let count = WorkloadContext.questions(scale: scale)
        var rng = SplitMix64(seed: seed, stream: .getKeys, index: distribution == .uniform ? 0 : 1)
        switch distribution {
        case .uniform:
            return (0..<count).map { _ in 1 + Int64(rng.below(UInt64(scale))) }
        case .zipfian:
            let zipfian = ScrambledZipfianGenerator(count: scale)
            return (0..<count).map { _ in 1 + Int64(zipfian.next(using: &rng)) }
        }
    }
}
