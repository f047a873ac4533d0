/// One planned cell of a run's matrix.
package struct PlannedCell: Sendable {
    package let store: StoreKind
    package let workload: any Workload
    package let scale: Scale
    package let repetition: Int
    /// The build that runs it: this one, but in an A/B run (`RunPlan.interleaved`).
    package let side: Side

    package init(store: StoreKind, workload: any Workload, scale: Scale, repetition: Int, side: Side = .current) {
        self.store = store
        self.workload = workload
        self.scale = scale
        self.repetition = repetition
        self.side = side
    }

    package var id: CellID {
        CellID(store: store.name, workload: workload.name, scale: scale, repetition: repetition)
    }
    package var group: GroupID { id.group }
    /// Whether this cell's store has the capability its workload needs: a cell that cannot run is recorded, not run.
    package var applies: Bool { workload.applies(to: store) }

    /// The result of a cell that does not apply, recorded in its place; nil for one that does.
    var notApplicable: CellResult? {
        applies
            ? nil
            : CellResult(
                id, status: .notApplicable,
                reason: workload.notApplicableReason(for: store) ?? "")
    }
}

/// The ordered cells of a run, in one of two orders.
///
/// - `init`, one build's run: scale by scale, workload by workload (the shard's groups only, `Shard`), each
///   repetition the configuration asks at that scale (`RunConfiguration.repetitions(at:)`), and within a
///   repetition every store once in the order `StoreShuffle` gives. The scheduler (`Runner`) may then reorder the
///   first repetition of a group (`SlowestFirst`), skip what `Resumption` kept, and give every cell of a group its
///   group's count of steps (`StepCounts`).
/// - `interleaved`, two builds timed in turn (`check --base`): for each (scale, workload, store) every
///   repetition of both builds before the next, in the turns `turns(repetitions:first:)` gives. A drift in the
///   machine's speed then touches both builds alike, and neither always runs first. Each cell's first run sets the
///   count of steps its later runs do (`StepCounts.perCell`), so both builds do the same operations.
package struct RunPlan {
    package let cells: [PlannedCell]
    /// Whether this is one build's run, whose groups the scheduler equalizes, or two builds' in turn.
    package let interleaved: Bool

    package init(_ configuration: RunConfiguration, stores: [StoreKind], workloads: [any Workload]) {
        let shuffle = StoreShuffle(seed: configuration.seed)
        cells = Self.groups(configuration, workloads: workloads).flatMap { scaleIndex, workloadIndex, workload, scale in
            (1...configuration.repetitions(at: scale)).flatMap { repetition in
                let round = ((scaleIndex * workloads.count) + workloadIndex) * configuration.repetitions + repetition
                return shuffle.order(stores, round: UInt64(round)).map {
                    PlannedCell(store: $0, workload: workload, scale: scale, repetition: repetition)
                }
            }
        }
        interleaved = false
    }

    /// Two builds' cells in turn, `first` first in the first repetition.
    package static func interleaved(
        _ configuration: RunConfiguration, stores: [StoreKind], workloads: [any Workload], first: Side
    ) -> RunPlan {
        RunPlan(
            cells: groups(configuration, workloads: workloads).flatMap { _, _, workload, scale in
                stores.flatMap { store in
                    turns(repetitions: configuration.repetitions(at: scale), first: first).enumerated().flatMap {
                        repetition, turn in
                        turn.map {
                            PlannedCell(
                                store: store, workload: workload, scale: scale, repetition: repetition + 1, side: $0)
                        }
                    }
                }
            }, interleaved: true)
    }

    private init(cells: [PlannedCell], interleaved: Bool) {
        self.cells = cells
        self.interleaved = interleaved
    }

    /// The sides in each repetition's turn: `first` first in odd repetitions, the other in even ones
    /// (A B, B A, A B, …), so that over the cell each runs first, and right after the other, as often.
    package static func turns(repetitions: Int, first: Side = .base) -> [[Side]] {
        let pair: [Side] = first == .base ? [.base, .current] : [.current, .base]
        return (1...repetitions).map { $0 % 2 == 1 ? pair : pair.reversed() }
    }

    /// The (workload, scale) groups of the run, scale by scale (the shard's only), with their places in the matrix.
    private static func groups(_ configuration: RunConfiguration, workloads: [any Workload]) -> [(
        scaleIndex: Int, workloadIndex: Int, workload: any Workload, scale: Scale
    )] {
        let shard = configuration.shard.map { Set($0.groups(of: configuration)) }
        return configuration.scales.enumerated().flatMap { scaleIndex, scale in
            workloads.enumerated().compactMap { workloadIndex, workload in
                shard?.contains(GroupID(workload: workload.name, scale: scale)) ?? true
                    ? (scaleIndex, workloadIndex, workload, scale) : nil
            }
        }
    }

    /// What is left to run of this plan once `done` ran: the cells that apply and are not done (`--dry-run`).
    package func remaining(after done: Set<CellID>) -> [PlannedCell] {
        cells.filter { $0.applies && !done.contains($0.id) }
    }

    /// The plan's groups, in its order.
    package var groups: [GroupID] { orderedUnique(cells.map(\.group)) }
}

/// The order stores run in within one repetition of a group: shuffled (Fisher–Yates) from the run's seed for each
/// round, so that a drift in the machine's speed touches every store alike and no store always runs first, on a
/// cold machine, or last.
///
/// Reports list stores in the configuration's order, not this one.
package struct StoreShuffle {
    package let seed: UInt64

    package init(seed: UInt64) { self.seed = seed }

    /// `stores` in the `round`-th repetition of the run.
    package func order<Element>(_ stores: [Element], round: UInt64) -> [Element] {
        var rng = SplitMix64(seed: seed, stream: .storeOrder, index: round)
        var order = stores
        for index in stride(from: order.count - 1, to: 0, by: -1) {
            order.swapAt(index, Int(rng.below(UInt64(index + 1))))
        }
        return order
    }
}

/// The first repetition of a (workload, scale), slowest store first: by the seconds per step each store took in
/// the first repetition of the same workload at the largest smaller scale measured, stores with no such cell
/// first, ties in the shuffled order.
///
/// The slowest store then sets the group's count (`TimeBox`) before the others run, and none of them runs again on it.
/// The first scale keeps the shuffled order; so do the later repetitions, which have no clock.
package enum SlowestFirst {
    package static func order(_ cells: some Collection<PlannedCell>, measured: [CellResult]) -> [PlannedCell] {
        guard let first = cells.first else { return [] }
        let earlier = measured.filter {
            $0.workload == first.workload.name && $0.repetition == 1 && $0.scale.records < first.scale.records
                && $0.metrics?.verification.steps != nil
        }
        guard let scale = earlier.map(\.scale.records).max() else { return Array(cells) }
        var secondsPerStep: [String: Double] = [:]
        for cell in earlier where cell.scale.records == scale {
            if let metrics = cell.metrics, let steps = metrics.verification.steps, steps > 0 {
                secondsPerStep[cell.store] = metrics.phase.timedSeconds / Double(steps)
            }
        }
        let order = cells.enumerated().sorted { one, other in
            let (mine, theirs) = (secondsPerStep[one.element.store.name], secondsPerStep[other.element.store.name])
            if mine != theirs { return (mine ?? .infinity) > (theirs ?? .infinity) }
            return one.offset < other.offset
        }
        return order.map(\.element)
    }
}
