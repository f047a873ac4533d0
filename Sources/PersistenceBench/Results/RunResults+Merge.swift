import Foundation

/// One shard of a merged run: the machine that ran it, when, and which groups.
package struct ShardRun: Codable, Equatable, Sendable {
    package var shard: Shard
    package var environment: RunEnvironment
    package var startedAt: Date
    package var finishedAt: Date
    package var groups: [GroupID]
    /// The directory it was merged from, as `merge` was given it.
    package var source: String
    /// The machines other than `environment`'s it was resumed on (`RunResults.resumedOn`).
    package var resumedOn: [RunEnvironment]?
}

extension RunResults {
    /// Runs of different matrices judged as one (the counted gate's baselines, or the runs counted from them): the
    /// first run's machine and configuration, every run's stores in order and every cell.
    ///
    /// Cells keep their own keys (store, workload, scale), so a store in two matrices is one store of the joined run; a
    /// cell in two of the runs is refused, naming it.
    package static func joining(_ runs: [RunResults]) throws -> RunResults {
        guard var joined = runs.first else { throw BenchError("no runs to join") }
        var keys = Set(joined.cells.map { SeriesID(store: $0.store, workload: $0.workload, scale: $0.scale) })
        for run in runs.dropFirst() {
            let theirs = Set(run.cells.map { SeriesID(store: $0.store, workload: $0.workload, scale: $0.scale) })
            if let shared = keys.intersection(theirs).first {
                throw BadInput("\(shared) is in two of the runs joined: each cell belongs to one matrix")
            }
            keys.formUnion(theirs)
            joined.configuration.stores += run.configuration.stores.filter {
                !joined.configuration.stores.contains($0)
            }
            joined.cells += run.cells
        }
        return joined
    }

    /// Rounds of one side of a time check, pooled: the first round's machine and configuration, and every round's
    /// cells, each later round's repetitions numbered on from the last before it, so that every cell's repetitions
    /// are its samples.
    package static func pooling(_ rounds: [RunResults]) throws -> RunResults {
        guard var pooled = rounds.first else { throw BenchError("no rounds to pool") }
        for round in rounds.dropFirst() {
            let offset = pooled.cells.map(\.repetition).max() ?? 0
            pooled.cells += round.cells.map { cell in
                var cell = cell
                cell.repetition += offset
                return cell
            }
        }
        return pooled
    }

    /// Shards of one run (`run --shard K/N`, each finished) joined into one run: every cell keeps the shard that
    /// measured it (`CellResult.shard`), `shards` keeps each one's machine and groups, and the configuration is the
    /// shards' own without the cut.
    ///
    /// Throws a message naming what differs for shards that are not the parts of one run: different commits, builds
    /// (compiler, engines), seeds or options, a different cut, one missing or given twice, one unfinished.
    package static func merging(_ parts: [(source: String, results: RunResults)], command: String) throws -> RunResults
    {
        let ordered = try orderedShards(parts)
        let reference = ordered[0]
        for part in ordered.dropFirst() {
            let differences = Self.differences(reference.results, part.results)
            guard differences.isEmpty else {
                throw BenchError(
                    "\(reference.source) and \(part.source) are not shards of one run: "
                        + differences.joined(separator: "; "))
            }
        }
        var configuration = reference.results.configuration
        configuration.shard = nil
        var environment = reference.results.environment
        environment.command = command
        var merged = RunResults(
            environment: environment, configuration: configuration,
            startedAt: ordered.map(\.results.startedAt).min() ?? reference.results.startedAt)
        merged.finishedAt = ordered.map(\.finishedAt).max()
        merged.shards = ordered.map { part in
            ShardRun(
                shard: Shard(index: part.shard.index, count: part.shard.count), environment: part.results.environment,
                startedAt: part.results.startedAt,
                finishedAt: part.finishedAt, groups: part.shard.groups(of: part.results.configuration),
                source: part.source, resumedOn: part.results.resumedOn)
        }
        for part in ordered {
            merged.cells += part.results.cells.map { cell in
                var cell = cell
                cell.shard = part.shard.index
                return cell
            }
        }
        // Scale by scale, workload by workload, as the run made in one go has them (each group's own order kept).
        let scaleRank = Dictionary(configuration.scales.enumerated().map { ($1, $0) }, uniquingKeysWith: min)
        let workloadRank = Dictionary(configuration.workloads.enumerated().map { ($1, $0) }, uniquingKeysWith: min)
        merged.cells = merged.cells.enumerated().sorted { one, other in
            let left = (scaleRank[one.element.scale] ?? .max, workloadRank[one.element.workload] ?? .max)
            let right = (scaleRank[other.element.scale] ?? .max, workloadRank[other.element.workload] ?? .max)
            return left != right ? left < right : one.offset < other.offset
        }.map(\.element)
        return merged
    }

    /// A shard of a run to merge: where it was read, its results, which part it is and when it finished.
    private typealias ShardPart = (source: String, results: RunResults, shard: Shard, finishedAt: Date)

    /// `parts` in the order of their shards, or a message naming the part that is not a finished shard of one cut, or
    /// one missing or given twice.
    private static func orderedShards(_ parts: [(source: String, results: RunResults)]) throws -> [ShardPart] {
        var byIndex: [Int: ShardPart] = [:]
        var count: (source: String, shard: Shard)?
        for (source, results) in parts {
            guard let shard = results.configuration.shard else {
                throw BenchError("\(source) is not a shard: it was run without --shard")
            }
            if let count, count.shard.count != shard.count {
                throw BenchError(
                    "\(count.source) is shard \(count.shard) and \(source) is shard \(shard): shards of different cuts")
            }
            count = count ?? (source, shard)
            if let other = byIndex[shard.index] {
                throw BenchError("shard \(shard) is given twice: \(other.source) and \(source)")
            }
            guard let finishedAt = results.finishedAt else {
                throw BenchError(
                    "shard \(shard) (\(source)) did not finish: `persistbench run --resume \(source)` completes it")
            }
            byIndex[shard.index] = (source, results, shard, finishedAt)
        }
        guard let count = count?.shard.count else { throw BenchError("no shard to merge") }
        let ordered = (1...count).compactMap { byIndex[$0] }
        guard ordered.count == count else {
            throw BenchError(
                "shard(s) " + (1...count).filter { byIndex[$0] == nil }.map { "\($0)/\(count)" }.joined(separator: ", ")
                    + " missing: every shard of the run is needed (given: "
                    + ordered.map(\.shard.description).joined(separator: ", ") + ")")
        }
        return ordered
    }

    /// What makes two shards parts of different runs, one phrase each; empty when they are parts of one.
    static func differences(_ one: RunResults, _ other: RunResults) -> [String] {
        var found = RunEnvironment.buildDifferences(one.environment, other.environment)
        func compare<Value: Equatable>(_ what: String, _ value: (RunResults) -> Value) {
            if value(one) != value(other) { found.append("\(what) differ (\(value(one)) and \(value(other)))") }
        }
        compare("seeds") { $0.configuration.seed }
        compare("stores") { $0.configuration.stores }
        compare("workloads") { $0.configuration.workloads }
        compare("scales") { $0.configuration.scales.map(\.description) }
        compare("repetitions") { $0.configuration.repetitionsDescription }
        compare("batch sizes") { $0.configuration.batchSize }
        compare("time budgets") { $0.configuration.timeBudgetSeconds }
        compare("fixture time budgets") { $0.configuration.fixtureTimeBudgetSeconds.map { "\($0) s" } ?? "the cell's" }
        compare("memory budgets") { $0.configuration.memoryBudgetBytes }
        compare("memory limits") { $0.configuration.memoryLimitBytes.map { "\($0)" } ?? "none" }
        compare("time boxes") { $0.configuration.timeBoxSeconds.map { "\($0) s" } ?? "none" }
        compare("budget floors") { $0.configuration.floorSeconds.map { "\($0) s" } ?? "none" }
        compare("read rates") { $0.configuration.readRate.map { "\($0)" } ?? "default" }
        compare("levels of readers") { $0.configuration.readers.map { "\($0)" } ?? "default" }
        compare("counting") { $0.configuration.counted == true }
        compare("kept stores") { $0.configuration.keepStores }
        compare("cuts") { run in
            run.configuration.shard.map { shard in
                Shard.deal(run.configuration, into: shard.count, costs: shard.costs)
                    == Shard.deal(
                        one.configuration, into: shard.count, costs: one.configuration.shard?.costs)
                    ? "the first part's" : shard.costs == nil ? "by records" : "by other estimates"
            } ?? "none"
        }
        return found
    }
}

extension RunResults {
    // MARK: - merge's inputs

    /// The shards at `shards` merged (`merging(_:command:)`) and the runs at `capped` joined as its capped runs, for
    /// a merged run written to `out`.
    ///
    /// Bad input when `out` is one of the runs merged, or when they do not merge.
    package static func merging(shards: [String], capped: [String], into out: String, command: String) throws
        -> RunResults
    {
        let target = URL(fileURLWithPath: out).resolvingSymlinksInPath().standardizedFileURL.path
        for input in shards + capped {
            var source = URL(fileURLWithPath: input)
            if source.lastPathComponent == "results.json" { source.deleteLastPathComponent() }
            guard source.resolvingSymlinksInPath().standardizedFileURL.path != target else {
                throw BadInput("--out '\(out)' is one of the runs merged ('\(input)'): name another directory")
            }
        }
        let parts = try shards.map { (source: $0, results: try RunResults.load(named: $0)) }
        do {
            var merged = try merging(parts, command: command)
            let joined = try capped.map { try merged.joining(capped: try RunResults.load(named: $0), source: $0) }
            merged.cappedRuns = joined.isEmpty ? nil : joined
            return merged
        } catch let error as BadInput {
            throw error
        } catch {
            throw BadInput("\(error)")
        }
    }
}
