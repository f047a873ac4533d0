import Foundation

/// What cells will take, from cells already measured (this run's, or earlier runs', in the order they ran), in the
/// run's wall seconds (`CellResult.runSeconds`; its process's wall time alone in results recorded before that).
///
/// A run loads each (store, fixture, scale)'s fixture once, for the first cell that needs it, and that cell's
/// `runSeconds` holds the load (`fixtureSeconds`). The estimate keeps the two apart. Mixed, one cell of three
/// repetitions at 1M and the only one at 3M carrying a load read as a cost growing as N^4.6. In results recorded
/// before `fixtureSeconds`, the first cell of a scale to use a fixture (walking the cells in order) loaded it: its
/// own time is its process's and the fixture's copy made for it (what the copy costs, the fixture's other cells
/// show), the rest the load.
///
/// A cell's own time (from the cells that finished only), and a fixture's load alike: the median where measured at
/// its scale; else the power law of seconds against N over the largest three scales measured (in proportion to N
/// from a single scale: loading the data grows so); else the median seconds per record of its workload's (or
/// fixture's) cells, else of every cell, times its records. Nil with nothing measured.
///
/// With the run's budgets, a plan is estimated as the runner runs it: a cell takes at most its time budget and a
/// fixture's load at most the fixture's (their processes are stopped there), and after a cell over its budget, or
/// one that did not finish in the run being resumed, no cell of its store and workload runs at its scale or above.
/// A growth fitted at small scales otherwise foresaw hours for cells that stop at the budget: `json observe` (88 s
/// at 10k, in proportion to N) put 36 h 44 min on a shard of the flagship sweep; bounded, 5 h 53 min.
package struct RunEstimate: Sendable {
    /// What the runner gives a cell and a fixture's load before it stops them.
    package struct Budgets: Sendable {
        package var cellSeconds: Double
        package var fixtureSeconds: Double

        package init(cellSeconds: Double, fixtureSeconds: Double) {
            self.cellSeconds = cellSeconds
            self.fixtureSeconds = fixtureSeconds
        }

        package init(_ configuration: RunConfiguration) {
            self.init(
                cellSeconds: configuration.timeBudgetSeconds,
                fixtureSeconds: configuration.fixtureTimeBudgetSeconds ?? configuration.timeBudgetSeconds)
        }
    }

    /// A (store, workload) or a (store, fixture).
    private struct Key: Hashable {
        var store: String
        var name: String
    }

    /// The fixtures loaded at one scale, which a run frees when its scale changes.
    private struct Loaded: Sendable {
        private var records = 0
        private var fixtures: Set<Key> = []

        /// Whether the next cell, of `store` at `records`, loads `fixture` (nil: it needs none); it is loaded from
        /// then on, until a cell of another scale.
        mutating func loads(_ fixture: String?, for store: String, at records: Int) -> Bool {
            if records != self.records { self = Loaded(records: records, fixtures: []) }
            guard let fixture else { return false }
            return fixtures.insert(Key(store: store, name: fixture)).inserted
        }
    }

    /// Per (store, workload), each scale's wall seconds of the cell without its fixture's load.
    private var walls: [Key: [Int: [Double]]] = [:]
    /// Per (store, fixture), each scale's seconds to load it.
    private var loads: [Key: [Int: [Double]]] = [:]
    /// Per workload, and per fixture, the seconds per record of every sample.
    private var perRecord: [String: [Double]] = [:]
    private var loadPerRecord: [String: [Double]] = [:]
    private var everyPerRecord: [Double] = []
    /// The fixtures still loaded after the last cell measured.
    private var loadedAtEnd = Loaded()
    /// Per (store, workload), the smallest scale at which a cell of the run being resumed did not finish: the runner
    /// runs none of its cells there or above.
    private var stoppedAt: [Key: Int] = [:]

    /// From the cells of the run the estimate is for, in the order they ran.
    package init(measured: [CellResult]) {
        self.init(runs: [], resuming: measured)
    }

    /// From the cells of each run, in the order they ran there: results that record which cell waited for a fixture's
    /// load (`CellResult.fixtureSeconds`) say so; in those recorded before, the first cell of a scale to use it did.
    ///
    /// `resuming`: the cells of the run the estimate is for, measured before it was interrupted (or so far), whose
    /// cells that did not finish stop the cells after them (an earlier run's had budgets of its own), and whose times
    /// at a scale replace the earlier runs' there: `json insert-each 10k` at 0.7 s in an earlier run and 4.7 s in
    /// this one is 4.7 s, not their median.
    package init(runs: [[CellResult]], resuming: [CellResult] = []) {
        attribute(timedCells(of: resuming.isEmpty ? runs : runs + [resuming], stopping: !resuming.isEmpty))
        guard !runs.isEmpty, !resuming.isEmpty else { return }
        let own = RunEstimate(runs: [], resuming: resuming)
        for (key, scales) in own.walls {
            for (records, seconds) in scales { walls[key, default: [:]][records] = seconds }
        }
        for (key, scales) in own.loads {
            for (records, seconds) in scales { loads[key, default: [:]][records] = seconds }
        }
    }

    /// A finished cell's wall time, its fixture and whether it loaded it (waited for the load).
    private typealias TimedCell = (cell: CellResult, wall: Double, fixture: String?, loader: Bool)

    /// The cells of `all` with a wall time, each marked where it loaded its fixture; with `stopping`, the last run's
    /// cells that did not finish stop their series (`stoppedAt`).
    private mutating func timedCells(of all: [[CellResult]], stopping: Bool) -> [TimedCell] {
        var timed: [TimedCell] = []
        for (index, cells) in all.enumerated() {
            let recordsLoads = cells.contains { $0.fixtureSeconds != nil }
            let stops = stopping && index == all.count - 1
            var loaded = Loaded()
            // Without the record: the time beyond its process of each fixture's first cell at a scale. A later cell
            // whose time beyond its process is over half of that loaded the fixture anew (the run resumed there).
            var firstExtra: [Key: [Int: Double]] = [:]
            for cell in cells where cell.status != .notApplicable {
                if stops, cell.status == .dnf, cell.interrupted != true {
                    let key = Key(store: cell.store, name: cell.workload)
                    stoppedAt[key] = min(stoppedAt[key] ?? .max, cell.scale.records)
                }
                let fixture = WorkloadCatalog.workload(named: cell.workload)?.fixture?.name
                var loader = loaded.loads(fixture, for: cell.store, at: cell.scale.records)
                guard cell.interrupted != true, let wall = cell.runSeconds ?? cell.process?.wallSeconds, wall > 0
                else { continue }
                if recordsLoads {
                    // A fixture reused from the cache was not loaded: its digest's check is the cell's own time.
                    loader = cell.fixtureSeconds != nil && cell.fixture?.built != false
                } else if let fixture, let process = cell.process?.wallSeconds {
                    let key = Key(store: cell.store, name: fixture)
                    if loader { firstExtra[key, default: [:]][cell.scale.records] = wall - process }
                    if let first = firstExtra[key]?[cell.scale.records], first > 0, wall - process > first / 2 {
                        loader = true
                    }
                }
                timed.append((cell, wall, fixture, loader))
            }
            loadedAtEnd = loaded
        }
        return timed
    }

    /// Each timed cell's time less its fixture's load, by store and workload, and each load's, by store and fixture.
    private mutating func attribute(_ timed: [TimedCell]) {
        // Every cell's run time holds its fixture's copy besides its process: the cells that did not load it show
        // what the copy costs (per store and fixture, by scale), which the loader's time holds too.
        var copies: [Key: [Int: [Double]]] = [:]
        for (cell, wall, fixture, loader) in timed where !loader {
            guard let fixture, let process = cell.process?.wallSeconds else { continue }
            copies[Key(store: cell.store, name: fixture), default: [:]][cell.scale.records, default: []]
                .append(max(0, wall - process))
        }
        for (cell, wall, fixture, loader) in timed {
            let records = cell.scale.records
            var own = wall
            if loader, let fixture {
                let key = Key(store: cell.store, name: fixture)
                let load =
                    cell.fixtureSeconds
                    ?? cell.process.map {
                        wall - min(wall, $0.wallSeconds + (Self.extrapolated(copies[key], to: records) ?? 0))
                    }
                if let load, load > 0 {
                    own = wall - load
                    loads[key, default: [:]][records, default: []].append(load)
                    loadPerRecord[fixture, default: []].append(load / Double(records))
                }
            }
            // A cell that did not finish took what its budget or its fixture's failure let it, not its work's time:
            // the flagship's `json search 10M`, its load over the memory budget, stopped in 0.5 s, and a power law
            // from 45 s at 1M put 101 hours on `json search 10k`. Its load, if any, is still what the run spent.
            guard cell.status == .ok else { continue }
            walls[Key(store: cell.store, name: cell.workload), default: [:]][records, default: []].append(own)
            perRecord[cell.workload, default: []].append(own / Double(records))
            everyPerRecord.append(own / Double(records))
        }
    }

    package var isEmpty: Bool { everyPerRecord.isEmpty }

    /// The estimate for one cell without its fixture's load, or nil with nothing measured.
    package func seconds(store: String, workload: String, scale: Scale) -> Double? {
        Self.extrapolated(walls[Key(store: store, name: workload)], to: scale.records)
            ?? Self.perRecord(perRecord[workload], else: everyPerRecord, records: scale.records)
    }

    /// The estimate for loading `fixture` into `store` at `scale`; nil where no load was measured.
    package func loadSeconds(store: String, fixture: String, scale: Scale) -> Double? {
        Self.extrapolated(loads[Key(store: store, name: fixture)], to: scale.records)
            ?? Self.perRecord(loadPerRecord[fixture], else: loadPerRecord.values.flatMap { $0 }, records: scale.records)
    }

    /// The estimate for every cell of `cells` (in the order they will run) that its store can run, with each
    /// fixture load they wait for that the cache does not hold (`cached`), or nil with nothing measured.
    ///
    /// `continuing`: the cells follow the measured ones in the same run, so that the fixtures of the last scale
    /// measured are loaded already. `budgets`: the run's, which stop a cell, and the cells of its store and workload
    /// after it (as the type's documentation says).
    package func seconds(
        of cells: some Sequence<PlannedCell>, continuing: Bool = false, budgets: Budgets? = nil,
        cached: (PlannedCell, Fixture) -> Bool = { _, _ in false }
    ) -> Double? {
        secondsPerCell(of: cells, continuing: continuing, budgets: budgets, cached: cached)?.reduce(0, +)
    }

    /// `seconds(of:continuing:budgets:)` cell by cell: 0 for a cell its store cannot run, or that the runner will
    /// not run after one over its budget; a fixture's load in the first cell that waits for it.
    ///
    /// `cached`: whether the fixture cache holds a cell's fixture, whose load is then none (its digest's check is
    /// seconds where the load was minutes).
    package func secondsPerCell(
        of cells: some Sequence<PlannedCell>, continuing: Bool = false, budgets: Budgets? = nil,
        cached: (PlannedCell, Fixture) -> Bool = { _, _ in false }
    ) -> [Double]? {
        guard !isEmpty else { return nil }
        var loaded = continuing ? loadedAtEnd : Loaded()
        var stoppedAt = budgets == nil ? [:] : self.stoppedAt
        return cells.map { cell in
            guard cell.applies else { return 0 }
            let work = Key(store: cell.store.name, name: cell.workload.name)
            if let stopped = stoppedAt[work], cell.scale.records >= stopped { return 0 }
            var own = seconds(store: cell.store.name, workload: cell.workload.name, scale: cell.scale) ?? 0
            var load = 0.0
            let fixture = cell.workload.fixture
            if loaded.loads(fixture?.name, for: cell.store.name, at: cell.scale.records), let fixture,
                !cached(cell, fixture)
            {
                load = loadSeconds(store: cell.store.name, fixture: fixture.name, scale: cell.scale) ?? 0
            }
            if let budgets {
                if load > budgets.fixtureSeconds {
                    // Stopped in its load: the cell itself does not run.
                    (load, own) = (budgets.fixtureSeconds, 0)
                    stoppedAt[work] = cell.scale.records
                } else if own > budgets.cellSeconds {
                    own = budgets.cellSeconds
                    stoppedAt[work] = cell.scale.records
                }
            }
            return own + load
        }
    }

    /// The median at `records`; else the power law over the largest three scales measured (near a larger one, the
    /// cost grows as it did there, not as process start-up hid it at the smallest); else in proportion to N.
    private static func extrapolated(_ byScale: [Int: [Double]]?, to records: Int) -> Double? {
        guard let byScale else { return nil }
        if let own = byScale[records], let middle = median(own) { return middle }
        let nearest = byScale.keys.sorted().suffix(3)
        let samples = nearest.flatMap { scale in byScale[scale, default: []].map { (x: Double(scale), y: $0) } }
        if let law = PowerLaw(samples) { return law(Double(records)) }
        guard let (scale, values) = byScale.max(by: { $0.key < $1.key }), let middle = median(values) else {
            return nil
        }
        return middle * Double(records) / Double(scale)
    }

    private static func perRecord(_ rates: [Double]?, else every: [Double], records: Int) -> Double? {
        (median(rates ?? []) ?? median(every)).map { $0 * Double(records) }
    }
}

extension RunEstimate {
    /// The dry run's table: `plan`'s cells by (workload, scale) group in the configuration's order, each group's
    /// cells and estimated seconds (nil with nothing measured), and the total.
    package func byGroup(
        _ plan: [PlannedCell], configuration: RunConfiguration,
        cached: (PlannedCell, Fixture) -> Bool = { _, _ in false }
    ) -> (groups: [(group: GroupID, cells: Int, seconds: Double?)], total: Double?) {
        let perCell = secondsPerCell(of: plan, budgets: Budgets(configuration), cached: cached)
        let planned = Set(plan.map(\.group))
        let groups = Shard.groups(of: configuration).filter(planned.contains).map { group in
            let cells = plan.indices.filter { plan[$0].group == group }
            return (group, cells.count, perCell.map { perCell in cells.map { perCell[$0] }.reduce(0, +) })
        }
        return (groups, perCell?.reduce(0, +))
    }
}
