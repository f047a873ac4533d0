import Foundation

/// What `run` sets beside its matrix (stores, workloads, scales, repetitions, time box), as the command line gave it.
///
/// `RunSession.applying(_:workloadsGiven:)` checks each value and writes it into the configuration.
package struct RunSettings: Sendable {
    package var seed: UInt64
    package var batchSize: Int
    package var readRate: Double
    package var readers: ReaderLevels?
    /// `item`, a preset or a shape file's path (`RecordShape.named`).
    package var shape: String
    package var timeBudget: DurationOption
    package var fixtureTimeBudget: DurationOption
    package var floorTime: DurationOption
    package var memoryBudget: MemorySize
    package var memoryLimit: MemorySize?
    package var keepStores: Bool
    package var counted: Bool
    package var jobs: Int?
    package var singleRepetitionAbove: ScaleOption?
    /// `K/N` (`Shard(option:of:)`).
    package var shard: String?
    /// Earlier runs' cells (`--estimate-from`), whose times estimate the run's and cut its shards; empty: records
    /// cut them, and the run's own cells alone estimate what is left.
    package var estimates: [[CellResult]] = []
    /// Where fixtures are kept between runs (`FixtureCache`), or `none` for the run's scratch space.
    package var fixtures: String
    package var fixturesCap: MemorySize

    package init(
        seed: UInt64, batchSize: Int, readRate: Double, readers: ReaderLevels?, shape: String,
        timeBudget: DurationOption, fixtureTimeBudget: DurationOption, floorTime: DurationOption,
        memoryBudget: MemorySize, memoryLimit: MemorySize?, keepStores: Bool, counted: Bool, jobs: Int?,
        singleRepetitionAbove: ScaleOption?, shard: String?, fixtures: String, fixturesCap: MemorySize
    ) {
        (self.seed, self.batchSize, self.readRate, self.readers, self.shape) = (
            seed, batchSize, readRate, readers, shape
        )
        (self.timeBudget, self.fixtureTimeBudget, self.floorTime) = (timeBudget, fixtureTimeBudget, floorTime)
        (self.memoryBudget, self.memoryLimit, self.keepStores) = (memoryBudget, memoryLimit, keepStores)
        (self.counted, self.jobs, self.singleRepetitionAbove, self.shard) = (
            counted, jobs, singleRepetitionAbove, shard
        )
        (self.fixtures, self.fixturesCap) = (fixtures, fixturesCap)
    }
}

extension RunSession {
    /// This session with `settings` written into its configuration, or bad input naming the option that cannot be.
    ///
    /// A shape other than `item` replaces the workloads by its own of the same names (all of them when
    /// `workloadsGiven` is false); a shard is cut last, from the configuration it shards.
    package func applying(_ settings: RunSettings, workloadsGiven: Bool) throws -> RunSession {
        if settings.jobs != nil {
            guard settings.counted else { throw BadInput("--jobs goes with --count: timed cells run one at a time") }
            try OptionBounds.count(settings.jobs ?? 0, option: "--jobs", in: OptionBounds.jobs)
        }
        try OptionBounds.count(
            settings.batchSize, option: "--batch-size", in: OptionBounds.batchSize, unit: "records, ")
        guard settings.readRate > 0, settings.readRate <= 1_000_000 else {
            throw BadInput(
                "invalid --read-rate \(settings.readRate): reads per second, more than 0 and at most 1000000")
        }
        if settings.readers != nil, !workloads.contains(where: { $0 is ReadersWorkload }) {
            throw BadInput(
                "--readers sets the reader threads of get-readers, page-readers and search-readers, and --workloads "
                    + "names none of them")
        }
        var configuration = self.configuration
        (configuration.seed, configuration.batchSize) = (settings.seed, settings.batchSize)
        (configuration.readRate, configuration.readers) = (settings.readRate, settings.readers?.levels)
        configuration.timeBudgetSeconds = settings.timeBudget.seconds
        configuration.memoryBudgetBytes = settings.memoryBudget.bytes
        configuration.fixtureTimeBudgetSeconds = settings.fixtureTimeBudget.seconds
        if configuration.timeBoxSeconds != nil { configuration.floorSeconds = settings.floorTime.seconds }
        configuration.keepStores = settings.keepStores
        configuration.counted = settings.counted ? true : nil
        configuration.singleRepetitionAbove = settings.singleRepetitionAbove?.scale
        if settings.memoryLimit != nil { try MemoryCgroup.requireSettable() }
        configuration.memoryLimitBytes = settings.memoryLimit?.bytes
        configuration.fixtureCache = try FixtureCache.Place(option: settings.fixtures, cap: settings.fixturesCap)
        var workloads = self.workloads
        if let shape = try RecordShape.named(settings.shape) {
            let operations = ShapedWorkload.Operation.allCases.map(\.rawValue)
            let names = workloadsGiven ? configuration.workloads : operations
            workloads = try names.map { name in
                guard let workload = ShapedWorkload.named(name, shape: shape) else {
                    throw BadInput(
                        "--shape \(settings.shape): workload \(name) asks items; records of a shape answer "
                            + operations.joined(separator: ", "))
                }
                return workload
            }
            (configuration.workloads, configuration.shape) = (names, shape)
        }
        let unsharded = configuration
        configuration.shard = try settings.shard.map { option in
            var shard = try Shard(option: option, of: unsharded)
            if !settings.estimates.isEmpty {
                shard.costs = try Self.groupCosts(of: unsharded, stores: stores, workloads: workloads, from: settings)
            }
            return shard
        }
        var session = RunSession(configuration: configuration, stores: stores, workloads: workloads, sink: sink)
        session.estimates = settings.estimates
        return session
    }

    /// Each group's estimated seconds from `settings.estimates`, or bad input when those runs measured nothing
    /// that estimates them: its cells' own (each at most the time budget) and a share of each fixture load they wait
    /// for, split evenly among the groups of its scale that wait for it.
    private static func groupCosts(
        of configuration: RunConfiguration, stores: [StoreKind], workloads: [any Workload], from settings: RunSettings
    ) throws -> [Shard.GroupCost] {
        let estimate = RunEstimate(runs: settings.estimates)
        guard !estimate.isEmpty else {
            throw BadInput("--estimate-from: the runs named measured no cell to estimate this matrix's times from")
        }
        let budgets = RunEstimate.Budgets(configuration)
        let plan = RunPlan(configuration, stores: stores, workloads: workloads).cells
        var seconds: [GroupID: Double] = [:]
        // Each load (store, fixture, scale), and the groups that wait for it.
        var waiting: [String: (seconds: Double, groups: Set<GroupID>)] = [:]
        for group in Shard.groups(of: configuration) {
            // The group alone, as a part that runs it without the others does: a store and workload over its budget at
            // a smaller scale in another part does not stop its cells here.
            let cells = plan.filter { $0.group == group }
            let own = estimate.secondsPerCell(of: cells, budgets: budgets, cached: { _, _ in true }) ?? []
            for (cell, own) in zip(cells, own) where own > 0 {
                seconds[group, default: 0] += own
                guard let fixture = cell.workload.fixture else { continue }
                let key = "\(cell.store.name) \(fixture.name) \(cell.scale.records)"
                let load = estimate.loadSeconds(store: cell.store.name, fixture: fixture.name, scale: cell.scale) ?? 0
                waiting[key, default: (min(load, budgets.fixtureSeconds), [])].groups.insert(group)
            }
        }
        // In one order on every machine: a sum's last bit must not depend on a process's hash seed.
        for key in waiting.keys.sorted() {
            guard let (load, groups) = waiting[key] else { continue }
            for group in groups { seconds[group, default: 0] += load / Double(groups.count) }
        }
        // Whole seconds, so that two machines whose sums differ in their last bits (another libm's power law) all but
        // always cut alike; `merge` refuses parts cut otherwise.
        return Shard.groups(of: configuration).map { group in
            Shard.GroupCost(group: group, seconds: (seconds[group] ?? 0).rounded())
        }
    }
}
