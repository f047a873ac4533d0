import Foundation
import MemoryStore
import Reports
import StoreCatalog
import Testing

@testable import PersistenceBench

/// Runs split over machines: the cut (`Shard`), `run --shard`, and `merge`, which joins shards into the run made in
/// one go and refuses what is not the parts of one run.
@Suite struct ShardTests {
    static func configuration(scales: [Int], workloads: [String]) -> RunConfiguration {
        RunConfiguration(
            stores: ["memory", "sqlite"], workloads: workloads, scales: scales.map { Scale(records: $0) },
            repetitions: 1, seed: 42, batchSize: 1000, timeBudgetSeconds: 60, memoryBudgetBytes: 1 << 30,
            keepStores: false)
    }

    @Test func everyGroupGoesWholeToOneShardTheLargestDealtFirst() {
        let sweep = Self.configuration(
            scales: [10_000, 30_000, 100_000, 300_000, 1_000_000, 3_000_000, 10_000_000],
            workloads: ["insert", "insert-each", "get", "page", "update", "observe", "search", "open", "import"])
        let all = Shard.groups(of: sweep)
        #expect(all.count == 63)
        for count in [1, 2, 3, 4, 7, 63] {
            let dealt = Shard.deal(sweep, into: count)
            #expect(dealt.count == count)
            #expect(dealt.flatMap { $0 }.sorted { "\($0)" < "\($1)" } == all.sorted { "\($0)" < "\($1)" })
            #expect(dealt.allSatisfy { !$0.isEmpty })
            // Each shard keeps the run's order: scale by scale, workload by workload.
            for part in dealt {
                let positions = part.map { group in all.firstIndex(of: group)! }
                #expect(positions == positions.sorted())
            }
            // The records dealt differ between shards by at most the largest group's.
            let loads = dealt.map { $0.map(\.scale.records).reduce(0, +) }
            #expect(loads.max()! - loads.min()! <= 10_000_000, "\(count): \(loads)")
            #expect(Shard.deal(sweep, into: count) == dealt)
        }
        // Four machines: the nine 10M groups go 3, 2, 2, 2, and the rest even the records out.
        let four = Shard.deal(sweep, into: 4)
        #expect(four.map { $0.filter { $0.scale.records == 10_000_000 }.count } == [3, 2, 2, 2])
        #expect(Shard(index: 2, count: 4).groups(of: sweep) == four[1])
    }

    /// A sweep repeats its cells 3 times up to 1M and once above: one configuration, so one run (or one set of
    /// shards) holds it, and the cut weighs each group by records × repetitions.
    @Test func scalesAboveTheLimitRunOneRepetitionAndWeighAccordingly() {
        var sweep = Self.configuration(scales: [100_000, 1_000_000, 3_000_000], workloads: ["insert", "scan"])
        sweep.repetitions = 3
        #expect(sweep.repetitionsDescription == "3 per cell")
        sweep.singleRepetitionAbove = Scale(records: 1_000_000)
        #expect(sweep.repetitionsDescription == "3 per cell up to 1M, 1 above")
        let plan = RunPlan(sweep, stores: [MemoryItemStore.kind], workloads: [InsertWorkload(), ScanWorkload()]).cells
        for scale in sweep.scales {
            let repetitions = Set(plan.filter { $0.scale == scale }.map(\.repetition))
            #expect(repetitions == Set(1...(scale.records > 1_000_000 ? 1 : 3)), "\(scale)")
        }
        // 1M × 3 repetitions costs more than 2M × 1: the 1M groups are dealt first (by records alone, 2M's were).
        var uneven = Self.configuration(scales: [1_000_000, 2_000_000], workloads: ["insert", "get", "page"])
        uneven.repetitions = 3
        uneven.singleRepetitionAbove = Scale(records: 1_000_000)
        #expect(
            Shard.deal(uneven, into: 2).map { $0.map(\.description) } == [
                ["insert 1M", "page 1M", "page 2M"], ["get 1M", "insert 2M", "get 2M"],
            ])
    }

    /// The committed flagship sweep (10k–10M, four shards cut by records), cut again by its own cells' times: the
    /// longest of four shards is shorter, and every machine given the same runs cuts the same parts.
    @Test func aCutByEstimatedTimeShortensTheLongestShard() throws {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let flagship = try RunResults.load(
            named: repository.appendingPathComponent("results/2026-11-27-flagship-sweep/merged").path)
        var configuration = flagship.configuration
        configuration.shard = nil
        let (stores, workloads) = try StoreCatalog.kinds(of: configuration, in: "the flagship sweep")
        var settings = RunSettings(
            seed: configuration.seed, batchSize: configuration.batchSize, readRate: WorkloadContext.defaultReadRate,
            readers: nil, shape: "item", timeBudget: DurationOption(seconds: configuration.timeBudgetSeconds),
            fixtureTimeBudget: DurationOption(seconds: configuration.fixtureTimeBudgetSeconds ?? 3_600),
            floorTime: DurationOption(seconds: TimeBox.defaultFloorSeconds),
            memoryBudget: MemorySize(bytes: configuration.memoryBudgetBytes), memoryLimit: nil, keepStores: false,
            counted: false, jobs: nil, singleRepetitionAbove: nil, shard: "1/4", fixtures: "none",
            fixturesCap: MemorySize(bytes: 1 << 30))
        settings.singleRepetitionAbove = configuration.singleRepetitionAbove.map(ScaleOption.init)
        settings.estimates = [flagship.cells]
        let session = RunSession(configuration: configuration, stores: stores, workloads: workloads, sink: ReportSink())
        let costs = try #require(try session.applying(settings, workloadsGiven: true).configuration.shard?.costs)
        #expect(costs.count == Shard.groups(of: configuration).count && costs.allSatisfy { $0.seconds > 0 })
        // Each group's cost counts its cells' own time and a share of their loads: about the run's estimate, more where
        // a part would run cells that the whole run skips after a smaller scale's went over its budget.
        let estimate = RunEstimate(runs: [flagship.cells])
        let budgets = RunEstimate.Budgets(configuration)
        let plan = RunPlan(configuration, stores: stores, workloads: workloads).cells
        let whole = try #require(estimate.seconds(of: plan, budgets: budgets))
        #expect(costs.map(\.seconds).reduce(0, +) >= whole * 0.98, "\(costs.map(\.seconds).reduce(0, +)), \(whole)")
        // Each part's own estimate, its fixture loads once in it, as its dry run gives it.
        func parts(_ cut: [[GroupID]]) -> [Int] {
            cut.map { groups in
                Int(estimate.seconds(of: plan.filter { groups.contains($0.group) }, budgets: budgets) ?? 0)
            }
        }
        let byEstimate = parts(Shard.deal(configuration, into: 4, costs: costs))
        let byRecords = parts(Shard.deal(configuration, into: 4))
        #expect(byEstimate.max()! < byRecords.max()!, "by estimate \(byEstimate), by records \(byRecords)")
        print("flagship, four shards' estimates: by records \(byRecords) s, by estimate \(byEstimate) s")
        // A resume or a merge reads the cut back from the recorded configuration.
        var recorded = configuration
        recorded.shard = Shard(index: 2, count: 4, costs: costs)
        let decoded = try JSONDecoder().decode(RunConfiguration.self, from: try JSONEncoder().encode(recorded))
        #expect(decoded.shard?.groups(of: decoded) == Shard.deal(configuration, into: 4, costs: costs)[1])
    }

    @Test(arguments: ["0/2", "3/2", "1/0", "1", "a/b", "1/2/3", "-1/2", ""])
    func aShardIsKOfN(text: String) {
        #expect(Shard(parsing: text) == nil)
    }

    /// A finished shard of `configuration` with one cell per group, as if run on `host`.
    static func shard(
        _ index: Int, of count: Int, _ configuration: RunConfiguration, host: String = "one", commit: String = "abc"
    ) -> RunResults {
        var configuration = configuration
        configuration.shard = Shard(index: index, count: count)
        var environment = RunEnvironment.current(stores: [], arguments: [])
        environment.hostname = host
        environment.gitCommit = commit
        // Whole seconds: results.json keeps dates to the second.
        let start = Date(timeIntervalSince1970: 1_800_000_000 + Double(index) * 60)
        var results = RunResults(environment: environment, configuration: configuration, startedAt: start)
        for group in Shard(index: index, count: count).groups(of: configuration) {
            results.cells.append(
                CellResult(
                    CellID(store: "memory", workload: group.workload, scale: group.scale, repetition: 1), status: .ok))
        }
        results.finishedAt = start + 30
        return results
    }

    @Test func mergeJoinsTheShardsOfOneRunAndSaysWhichMachineRanWhat() throws {
        let run = Self.configuration(scales: [1000, 2000], workloads: ["insert", "scan", "get"])
        let merged = try RunResults.merging(
            [("b", Self.shard(2, of: 2, run, host: "two")), ("a", Self.shard(1, of: 2, run))], command: "merge a b")
        #expect(merged.configuration == run)
        #expect(merged.cells.count == 6)
        #expect(merged.shards?.map(\.environment.hostname) == ["one", "two"])
        #expect(merged.shards?.map(\.source) == ["a", "b"])
        #expect(merged.cells.allSatisfy { $0.shard != nil })
        #expect(merged.environment.command == "merge a b")
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("results.json")
        try merged.jsonData().write(to: file)
        #expect(try RunResults.load(from: file) == merged)
    }

    /// A part of a run names the engines of the stores it ran (`check --counters` resumes a part per process): only
    /// a store both name can make two builds differ.
    @Test func buildsDifferOnlyWhereBothNameAStoresEngine() {
        var one = RunEnvironment.current(stores: [], arguments: [])
        one.engines = ["sqlite": "SQLite 3.40.1", "lmdb": "LMDB 0.9.24"]
        var other = one
        other.engines = ["sqlite": "SQLite 3.40.1"]
        #expect(RunEnvironment.buildDifferences(one, other).isEmpty)
        other.engines = ["sqlite": "SQLite 3.45.0"]
        #expect(
            RunEnvironment.buildDifferences(one, other)
                == [#"engines differ (["sqlite SQLite 3.40.1"] and ["sqlite SQLite 3.45.0"])"#])
    }

    @Test func mergeRefusesWhatIsNotThePartsOfOneRun() throws {
        let run = Self.configuration(scales: [1000, 2000], workloads: ["insert", "scan", "get"])
        func refusal(_ parts: [(String, RunResults)]) -> String {
            do {
                _ = try RunResults.merging(parts.map { (source: $0.0, results: $0.1) }, command: "merge")
                return "merged"
            } catch { return "\(error)" }
        }
        var whole = Self.shard(1, of: 2, run)
        whole.configuration.shard = nil
        #expect(refusal([("w", whole)]).contains("w is not a shard"))
        #expect(
            refusal([("a", Self.shard(1, of: 2, run)), ("b", Self.shard(2, of: 3, run))]).contains("different cuts"))
        #expect(refusal([("a", Self.shard(1, of: 2, run)), ("b", Self.shard(1, of: 2, run))]).contains("given twice"))
        #expect(refusal([("a", Self.shard(1, of: 3, run)), ("c", Self.shard(3, of: 3, run))]).contains("2/3 missing"))
        var unfinished = Self.shard(2, of: 2, run)
        unfinished.finishedAt = nil
        #expect(refusal([("a", Self.shard(1, of: 2, run)), ("b", unfinished)]).contains("run --resume b"))
        #expect(
            refusal([("a", Self.shard(1, of: 2, run)), ("b", Self.shard(2, of: 2, run, commit: "def"))])
                .contains("commits differ (abc and def)"))
        // Parts cut by estimates: one cut merges, whatever the costs' last digits; two cuts are refused.
        let groups = Shard.groups(of: run)
        func cut(_ index: Int, costliest: Int, by extra: Double = 0) -> RunResults {
            let costs = groups.enumerated().map {
                Shard.GroupCost(group: $0.element, seconds: ($0.offset == costliest ? 100 : 1) + extra)
            }
            var part = Self.shard(index, of: 2, run)
            part.configuration.shard = Shard(index: index, count: 2, costs: costs)
            part.cells = part.configuration.shard!.groups(of: part.configuration).map { group in
                CellResult(
                    CellID(store: "memory", workload: group.workload, scale: group.scale, repetition: 1), status: .ok)
            }
            return part
        }
        #expect(refusal([("a", cut(1, costliest: 0)), ("b", cut(2, costliest: 0, by: 0.001))]) == "merged")
        #expect(refusal([("a", cut(1, costliest: 0)), ("b", cut(2, costliest: 5))]).contains("cuts differ"))
        var otherSeed = run
        otherSeed.seed = 7
        #expect(
            refusal([("a", Self.shard(1, of: 2, run)), ("b", Self.shard(2, of: 2, otherSeed))])
                .contains("seeds differ (42 and 7)"))
        var otherBox = run
        otherBox.timeBoxSeconds = 1
        #expect(
            refusal([("a", Self.shard(1, of: 2, run)), ("b", Self.shard(2, of: 2, otherBox))])
                .contains("time boxes differ"))
    }

    /// Two shards run one after the other by the real tool, merged: the same cells, answers and digest checks as
    /// the run made in one go (no time box, so that every cell does every step), and a report naming the machines.
    @Test(.tags(.endToEnd), .timeLimit(.minutes(10))) func twoShardsMergedEqualTheRunMadeInOneGo() throws {
        let directory = try TemporaryDirectory()
        let options = [
            "--stores", "memory,sqlite,lmdb", "--workloads", "insert,scan,count-where,get", "--scales", "1k,2k",
            "--repetitions", "1", "--time-box", "none",
        ]
        let whole = directory.url.appendingPathComponent("whole").path
        #expect(try runTool(["run"] + options + ["--out", whole]).status == 0)
        var shards: [String] = []
        for index in 1...2 {
            let out = directory.url.appendingPathComponent("shard-\(index)").path
            let run = try runTool(["run"] + options + ["--shard", "\(index)/2", "--out", out])
            #expect(run.status == 0, "\(run.output)")
            shards.append(out)
        }
        let mergedDirectory = directory.url.appendingPathComponent("merged").path
        let merge = try runTool(["merge"] + shards.reversed() + ["--out", mergedDirectory])
        #expect(merge.status == 0, "\(merge.output)")
        let once = try RunResults.load(from: URL(fileURLWithPath: whole + "/results.json"))
        let merged = try RunResults.load(from: URL(fileURLWithPath: mergedDirectory + "/results.json"))
        func answers(_ results: RunResults) -> [String] {
            results.cells.map {
                "\($0.store) \($0.workload) \($0.scale) \($0.repetition) \($0.status) "
                    + "\($0.metrics.map { "\($0.phase.operations) \($0.digest)" } ?? "")"
            }.sorted()
        }
        #expect(answers(merged) == answers(once))
        #expect(merged.digestChecks == once.digestChecks)
        #expect(merged.configuration == once.configuration)
        let report = try String(contentsOfFile: mergedDirectory + "/report.md", encoding: .utf8)
        #expect(report.contains("## Machines") && report.contains("| 2/2 |"))
        // A shard is not merged with a run of other options.
        let other = directory.url.appendingPathComponent("other").path
        #expect(try runTool(["run"] + options + ["--seed", "7", "--shard", "2/2", "--out", other]).status == 0)
        let refused = try runTool(["merge", shards[0], other, "--out", directory.url.appendingPathComponent("x").path])
        #expect(refused.status == 2 && refused.output.contains("seeds differ"), "\(refused.output)")
    }
}
