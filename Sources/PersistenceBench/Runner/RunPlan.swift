/// One planned cell of a run's matrix.
package struct PlannedCell: Sendable {
    package let store: StoreKind
    package let workload: any Workload
    package let scale: Scale
    package let repetition: Int

    package init(store: StoreKind, workload: any Workload, scale: Scale, repetition: Int) {
        self.store = store
        self.workload = workload
        self.scale = scale
        self.repetition = repetition
    }

    package var id: CellID {
        CellID(store: store.name, workload: workload.name, scale: scale, repetition: repetition)
    }
    package var group: GroupID { id.group }
    /// Whether this cell's store has the capability its workload needs: a cell that cannot run is recorded, not run.
    package var applies: Bool { workload.supports(store.type) }

    /// The result of a cell that does not apply, recorded in its place; nil for one that does.
    var notApplicable: CellResult? {
        applies
            ? nil : CellResult(id, status: .notApplicable, reason: "\(store.name) has no \(workload.name) capability")
    }
}

/// The ordered cells of a run: scale by scale, workload by workload (the shard's groups only, `Shard`), each
/// repetition the configuration asks at that scale (`RunConfiguration.repetitions(at:)`), and within a
/// repetition every store once in the order `StoreShuffle` gives. The scheduler (`Runner`) may then reorder the
/// first repetition of a group (`SlowestFirst`) and skip what `Resumption` kept.
package struct RunPlan {
    package let cells: [PlannedCell]

    package init(_ configuration: RunConfiguration, stores: [StoreKind], workloads: [any Workload]) {
        let groups = configuration.shard.map { Set($0.groups(of: configuration)) }
        let shuffle = StoreShuffle(seed: configuration.seed)
        cells = configuration.scales.enumerated().flatMap { scaleIndex, scale in
            workloads.enumerated().filter { _, workload in
                groups?.contains(GroupID(workload: workload.name, scale: scale)) ?? true
            }.flatMap { workloadIndex, workload in
                (1...configuration.repetitions(at: scale)).flatMap { repetition in
                    let round =
                        ((scaleIndex * workloads.count) + workloadIndex) * configuration.repetitions + repetition
                    return shuffle.order(stores, round: UInt64(round)).map {
                        PlannedCell(store: $0, workload: workload, scale: scale, repetition: repetition)
                    }
                }
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
/// cold machine, or last. Reports list stores in the configuration's order, not this one.
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
/// first, ties in the shuffled order. The slowest store then sets the group's count (`TimeBox`) before the others
/// run, and none of them runs again on it. The first scale keeps the shuffled order; so do the later repetitions,
/// which have no clock.
package enum SlowestFirst {
    package static func order(_ cells: some Collection<PlannedCell>, measured: [CellResult]) -> [PlannedCell] {
        guard let first = cells.first else { return [] }
        let earlier = measured.filter {
            $0.workload == first.workload.name && $0.repetition == 1 && $0.scale.records < first.scale.records
                && $0.metrics?.steps != nil
        }
        guard let scale = earlier.map(\.scale.records).max() else { return Array(cells) }
        var secondsPerStep: [String: Double] = [:]
        for cell in earlier where cell.scale.records == scale {
            if let metrics = cell.metrics, let steps = metrics.steps, steps > 0 {
                secondsPerStep[cell.store] = metrics.timedSeconds / Double(steps)
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
