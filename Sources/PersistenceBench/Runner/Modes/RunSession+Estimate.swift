import Foundation

/// What a run, or what remains of one to resume, will take, from cells measured before: the dry run's table and the
/// line a run with `--estimate-from` starts with.
package struct PlanEstimate {
    /// The cells that will run, in the order they will.
    package var cells: [PlannedCell]
    /// Per (workload, scale) group in the configuration's order, its cells and estimated seconds.
    package var groups: [(group: GroupID, cells: Int, seconds: Double?)]
    /// Nil with nothing measured.
    package var total: Double?
    /// The measured cells the estimate rests on.
    package var measuredCells: Int
    /// The fixtures the cells load, each once.
    package var fixturesNeeded: Int
    /// Those of them the fixture cache holds already, counted as no load.
    package var fixturesHeld: Int
    /// Whether the cache held a cell's fixture when the estimate was made.
    package var cached: (PlannedCell, Fixture) -> Bool
}

extension RunSession {
    /// This run's cells (or what remains of `interrupted`'s), estimated from the cells of `measured` (earlier runs)
    /// and the resumed run's own, a fixture the cache holds counted as no load.
    package func estimate(from measured: [[CellResult]], resuming interrupted: RunResults? = nil) -> PlanEstimate {
        let resumed = interrupted?.cells ?? []
        let plan = RunPlan(configuration, stores: stores, workloads: workloads).remaining(
            after: interrupted.map(Resumption.done) ?? [])
        let cache = try? configuration.fixtureCache.map(FixtureCache.init(place:))
        let build = try? FixtureCache.Key.build(of: Executable.path())
        func key(_ cell: PlannedCell, _ fixture: Fixture) -> FixtureCache.Key? {
            guard let build else { return nil }
            return try? FixtureCache.Key(fixture, for: cell, in: configuration, build: build)
        }
        let needed = Set(plan.filter(\.applies).compactMap { cell in cell.workload.fixture.flatMap { key(cell, $0) } })
        let held = cache.map { cache in needed.filter(cache.holds) } ?? []
        let cached = { (cell: PlannedCell, fixture: Fixture) in key(cell, fixture).map(held.contains) ?? false }
        let estimate = RunEstimate(runs: measured, resuming: resumed).byGroup(
            plan, configuration: configuration, cached: cached)
        return PlanEstimate(
            cells: plan, groups: estimate.groups, total: estimate.total,
            measuredCells: (measured + [resumed]).joined().filter { $0.status != .notApplicable }.count,
            fixturesNeeded: needed.count, fixturesHeld: held.count, cached: cached)
    }
}
