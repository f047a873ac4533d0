import Foundation
import Reports
import Testing

@testable import PersistenceBench

/// How cost grows with N: the power-law fit, its reading, the steep steps, and the report's section and charts.
@Suite struct GrowthTests {
    /// A run whose `store`'s `workload` takes `seconds(records, repetition)` per operation at each scale.
    static func run(_ costs: [String: (Int, Int) -> Double], scales: [Int]) -> RunResults {
        var results = RunResults(
            environment: RunEnvironment.current(stores: [], arguments: []),
            configuration: RunConfiguration(
                stores: costs.keys.sorted(), workloads: ["get"], scales: scales.map { Scale(records: $0) },
                repetitions: 3, seed: 1, batchSize: 1, timeBudgetSeconds: 60, memoryBudgetBytes: 1 << 30,
                keepStores: false),
            startedAt: Date())
        for records in scales {
            for (store, cost) in costs.sorted(by: { $0.key < $1.key }) {
                for repetition in 1...3 {
                    var cell = CellResult(
                        CellID(store: store, workload: "get", scale: Scale(records: records), repetition: repetition),
                        status: .ok)
                    cell.metrics = CellMetrics(
                        phase: PhaseFigures(timedSeconds: cost(records, repetition) * 1000, operations: 1000),
                        resources: ResourceFigures(bytesOnDisk: 1), verification: CellVerification(digest: Digest()))
                    results.cells.append(cell)
                }
            }
        }
        return results
    }

    @Test func aPowerLawIsFoundAndRead() throws {
        let jitter = [0.97, 1.0, 1.03]
        let results = Self.run(
            [
                "flat": { _, r in 2e-6 * jitter[r - 1] },
                "log": { n, r in 1e-7 * log(Double(n)) * jitter[r - 1] },
                "linear": { n, r in 1e-9 * Double(n) * jitter[r - 1] },
                "falling": { n, r in (1e-6 + 1.0 / Double(n)) * jitter[r - 1] },
                // Flat until 1M, then ten times dearer per step: a cache that stopped fitting.
                "cliff": { n, r in (n > 1_000_000 ? 1e-5 : 1e-6) * jitter[r - 1] },
            ], scales: [10_000, 100_000, 1_000_000, 10_000_000])
        let fits = Dictionary(uniqueKeysWithValues: Growth.fits(results).map { ($0.store, $0) })
        #expect(fits.count == 5)
        #expect(fits["flat"]!.reading == .constant && abs(fits["flat"]!.exponent) < 0.01)
        #expect(fits["log"]!.reading == .logarithmic, "\(fits["log"]!.exponent)")
        #expect(abs(fits["log"]!.exponent - 0.081) < 0.01, "\(fits["log"]!.exponent)")
        #expect(fits["linear"]!.reading == .growing && abs(fits["linear"]!.exponent - 1) < 0.001)
        #expect(fits["linear"]!.spread! < 0.01)
        #expect(abs(fits["linear"]!.predicted(at: 30_000_000) - 0.03) < 0.001)
        #expect(fits["falling"]!.reading == .falling)
        #expect(fits["cliff"]!.steepSteps.map { "\($0.from)–\($0.to)" } == ["1M–10M"])
        #expect(abs(fits["cliff"]!.steepSteps[0].exponent - 1) < 1e-9)
        // A bootstrap over the scales sees the cliff: b moves with the scales drawn.
        #expect(fits["cliff"]!.spread! > 0.1, "\(fits["cliff"]!.spread!)")
        #expect(fits["flat"]!.steepSteps.isEmpty && fits["log"]!.steepSteps.isEmpty)
        #expect(
            fits["linear"]!.points.map(\.low) == [10_000, 100_000, 1_000_000, 10_000_000].map { 0.97e-9 * Double($0) })

        let report = MarkdownReport.render(results)
        #expect(report.contains("## How cost grows with N"))
        #expect(report.contains("| `cliff` |") && report.contains("1M–10M (N^1.00)"))
        let charts = Charts.render(results)
        #expect(charts.contains { $0.name == "time-get.svg" && $0.svg.contains("1 µs") })
    }

    /// A launch is judged under the name of what its cells timed after the open (results before 2026-11-28 timed a
    /// lookup, later ones the first page), and a save's fresh result counts the commit too: a store that re-queries
    /// on the writer's thread before its commit returns (GRDB's observation) delivers quickly after a slow commit.
    @Test func aBudgetIsJudgedOnWhatTheCellsTimed() throws {
        func cell(_ workload: String, timed: Double, kinds: [String: Double], commit: Double? = nil) -> CellResult {
            let summaries = kinds.compactMapValues { LatencySummary(nanoseconds: [UInt64($0 * 1e9)]) }
            return CellResult(
                CellID(store: "s", workload: workload, scale: Scale(records: 10_000), repetition: 1), status: .ok,
                metrics: CellMetrics(
                    phase: PhaseFigures(timedSeconds: timed, operations: 2, latencyByOperation: summaries),
                    resources: ResourceFigures(bytesOnDisk: 1), verification: CellVerification(digest: Digest()),
                    figures: commit.map {
                        .observe(
                            ObserveMetrics(
                                commits: 1, commitsChangingResult: 1, deliveries: 1, notifications: 1, requeries: 1,
                                observerCPUSeconds: 0, commitLatency: LatencySummary(nanoseconds: [UInt64($0 * 1e9)])))
                    }))
        }
        func report(_ cells: [CellResult]) -> String {
            var results = Self.run([:], scales: [10_000])
            results.configuration.stores = ["s"]
            results.configuration.workloads = orderedUnique(cells.map(\.workload))
            results.cells = cells
            return MarkdownReport.render(results)
        }
        let before = report([cell("open", timed: 0.5, kinds: ["OPEN": 0.4, "FIRST-QUERY": 0.1])])
        #expect(before.contains("| store | cold open + first query ≤ 400 ms | cold open + first query ≤ 20 s |"))
        #expect(before.contains("| `s` | none (over at 10k: 500 ms) |"), "\(before)")
        #expect(!before.contains("first page ≤"))
        let after = report([cell("open", timed: 0.3, kinds: ["OPEN": 0.1, "FIRST-PAGE": 0.2])])
        #expect(after.contains("| store | cold open + first page ≤ 400 ms | cold open + first page ≤ 20 s |"))
        #expect(!after.contains("first query ≤"))
        let saved = report([cell("observe", timed: 1, kinds: ["FRESH": 0.0001], commit: 0.02)])
        #expect(saved.contains("| store | save to fresh result p99 ≤ a frame |"), "\(saved)")
        #expect(saved.contains("| `s` | none (over at 10k: max of 1: 20.1 ms) |"), "\(saved)")
    }

    /// Runs under memory caps joined to a run (`merge --capped`) give the budget table a column each: the largest
    /// scale at which every workload of the store finished under the cap; a run stopped part-way, from what it ran.
    @Test func cappedRunsGiveTheBudgetTableItsMemoryColumns() throws {
        var results = Self.run(["a": { _, _ in 1e-3 }, "b": { _, _ in 1e-3 }], scales: [10_000, 30_000])
        func capped(_ limit: Int64, _ outcomes: [(String, String, Int, String?)], finished: Bool) -> RunResults {
            var run = results
            run.configuration.memoryLimitBytes = limit
            run.finishedAt = finished ? Date() : nil
            run.cells = outcomes.map { store, workload, records, killed in
                CellResult(
                    CellID(store: store, workload: workload, scale: Scale(records: records), repetition: 1),
                    status: killed == nil ? .ok : .dnf, reason: killed)
            }
            if !finished {
                // The cell the run was stopped in is not a result.
                var stopped = CellResult(
                    CellID(store: "b", workload: "page", scale: Scale(records: 30_000), repetition: 1), status: .dnf,
                    reason: "stopped from outside the run by signal 15 (Terminated)")
                stopped.interrupted = true
                run.cells.append(stopped)
            }
            return run
        }
        let killed = CellResult.killedAtMemoryLimit + " of 24.0 MiB (page cache included)"
        let small = capped(
            24 << 20,
            [
                ("a", "get", 10_000, nil), ("a", "page", 10_000, nil), ("a", "get", 30_000, killed),
                ("a", "page", 30_000, nil), ("b", "get", 10_000, nil), ("b", "page", 10_000, nil),
                ("b", "get", 30_000, nil),
            ], finished: false)
        let large = capped(
            120 << 20,
            [
                ("a", "get", 10_000, nil), ("a", "get", 30_000, nil), ("b", "get", 10_000, nil),
                ("b", "get", 30_000, "over the time budget of 30 min"),
            ],
            finished: true)
        results.cappedRuns = [
            try results.joining(capped: small, source: "cap-24MiB"),
            try results.joining(capped: large, source: "cap-120MiB"),
        ]
        #expect(results.cappedRuns?[0].cells.allSatisfy { $0.metrics == nil } == true)
        // Kept in results.json, as `report DIR` renders it again.
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("results.json")
        try results.jsonData().write(to: file)
        let report = MarkdownReport.render(try RunResults.load(from: file))
        #expect(
            report.contains(
                "| every workload within 24.0 MiB (capped run, stopped part-way) | every workload within 120 MiB "
                    + "(capped run) |"), "\(report)")
        #expect(report.contains("| 10k (killed at 30k: get) | ≥ 30k measured |"), "\(report)")
        #expect(report.contains("| ≥ 10k measured (30k not all run) | 10k (DNF at 30k: get) |"), "\(report)")
        // Another seed, or a run without a cap, is refused with what differs.
        var other = small
        other.configuration.seed += 1
        #expect(throws: BenchError.self) { try results.joining(capped: other, source: "x") }
        #expect(throws: BenchError.self) { try results.joining(capped: results, source: "x") }
    }

    /// The budget table and chart: measured where measured, extrapolated beyond by the figure's power law, and
    /// marked so (in the chart, the fit dashed from the largest scale measured to where it reaches the limit); each
    /// cell names the figure it rests on, a figure of fewer than 100 samples is their max, and no law is fitted to
    /// fewer than 3 scales.
    @Test func theBudgetTableAndChartExtrapolateOnlyBeyondTheLargestScaleMeasured() throws {
        let scales = [10_000, 30_000, 100_000]
        var results = Self.run([:], scales: scales)
        results.configuration.stores = ["linear", "cliff", "few"]
        results.configuration.workloads = ["page"]
        let stores: [(String, [Double], samples: Int)] = [
            ("linear", [1.0, 3, 10], 100), ("cliff", [1.0, 2, 30], 100), ("few", [0, 1, 2], 10),
        ]
        for (store, p99Milliseconds, samples) in stores {
            for (scale, milliseconds) in zip(scales, p99Milliseconds) where milliseconds > 0 {
                for repetition in 1...3 {
                    results.cells.append(
                        CellResult(
                            CellID(
                                store: store, workload: "page", scale: Scale(records: scale), repetition: repetition),
                            status: .ok,
                            metrics: CellMetrics(
                                phase: PhaseFigures(
                                    timedSeconds: 1, operations: samples,
                                    latency: LatencySummary(
                                        nanoseconds: [UInt64](repeating: 100_000, count: samples * 95 / 100)
                                            + [UInt64](
                                                repeating: UInt64(milliseconds * 1e6),
                                                count: samples - samples * 95 / 100))),
                                resources: ResourceFigures(bytesOnDisk: 1),
                                verification: CellVerification(digest: Digest()))))
                }
            }
        }
        let report = MarkdownReport.render(results)
        #expect(report.contains("| store | page p99 ≤ a frame |"), "\(report)")
        // p99 ∝ N reaches 16.7 ms at 167k: named to two digits, below the crossing, with the figure at 100k.
        #expect(
            report.contains(
                "| `linear` | ≥ 100k measured (p99 of 100: 10 ms, 0 over); ≈ 160k extrapolated (exponent 1.00 ± 0.00) |"
            ),
            "\(report)")
        #expect(report.contains("| `cliff` | 30k (over at 100k: p99 of 100: 30 ms, 5 over) |"), "\(report)")
        // 10 samples: their slowest, from two scales: no fit.
        #expect(
            report.contains(
                "| `few` | ≥ 100k measured (max of 10: 2 ms, 0 over); no fit: 2 scales measured, a fit needs 3 |"),
            "\(report)")
        #expect(report.contains("![The budgets' figures against scale](charts/budgets.svg)"))
        let chart = try #require(Charts.render(results).first { $0.name == "budgets.svg" }?.svg)
        #expect(chart.contains(">page p99 ≤ a frame</text>") && chart.contains(">limit 16.7 ms</text>"), "\(chart)")
        // One projection, `linear`'s (`cliff` went over): from 100k to where its fit meets the limit's line.
        let projections = chart.split(separator: "\n").filter {
            $0.hasPrefix("<polyline") && $0.contains(#"stroke-dasharray="6 4""#)
        }
        #expect(projections.count == 1, "\(chart)")
        let limitLine = try #require(chart.split(separator: "\n").first { $0.contains(#"stroke-dasharray="8 4""#) })
        let limitY = try #require(limitLine.firstMatch(of: /y1="([0-9.]+)"/)?.1)
        let ends = try #require(projections.first?.firstMatch(of: /points="([0-9.]+),[0-9.]+ ([0-9.]+),([0-9.]+)"/))
        // The panel's x axis runs from 10k (80 px) to 1M (400 px): 100k at 240 px, 167k at 275.5 px.
        #expect(ends.1 == "240.0" && ends.2 == "275.5" && ends.3 == limitY, "\(projections)")
    }

    /// A run merged from shards of two machines: shards 1 and 3 on one boot (one machine), shard 2 on another whose
    /// probes were 1.5× and 3× slower.
    ///
    /// The report gives each machine's probes, says which scales of a workload ran where, and marks a steep step
    /// between two machines as such.
    @Test func aFitOverScalesOfDifferentMachinesSaysWhichRanWhere() throws {
        var results = Self.run(["linear": { n, _ in 1e-9 * Double(n) }], scales: [10_000, 100_000, 1_000_000])
        var fast = RunEnvironment.current(stores: [], arguments: [])
        fast.bootID = "aaaaaaaa-0000-4000-8000-000000000000"
        fast.cpuModel = "Fast CPU"
        var slow = fast
        slow.bootID = "bbbbbbbb-0000-4000-8000-000000000000"
        slow.cpuModel = "Slow CPU"
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let parts: [(index: Int, environment: RunEnvironment, records: Int, probes: (Double, Double))] = [
            (1, fast, 10_000, (0.016, 0.0001)), (2, slow, 100_000, (0.024, 0.0003)),
            (3, fast, 1_000_000, (0.018, 0.0001)),
        ]
        results.shards = parts.map { part in
            ShardRun(
                shard: Shard(index: part.index, count: 3), environment: part.environment, startedAt: start,
                finishedAt: start + 60, groups: [GroupID(workload: "get", scale: Scale(records: part.records))],
                source: "shard-\(part.index)")
        }
        for index in results.cells.indices {
            let part = try #require(parts.first { $0.records == results.cells[index].scale.records })
            results.cells[index].shard = part.index
            results.cells[index].metrics?.phase.calibrationSeconds = part.probes.0
            results.cells[index].metrics?.phase.syncCalibrationSeconds = part.probes.1
            results.cells[index].runSeconds = 2
        }

        #expect(results.machines.map(\.name) == ["boot aaaaaaaa", "boot bbbbbbbb"])
        #expect(results.machines.map(\.shards) == [[1, 3], [2]])
        let probes = results.machines.map { $0.cpuProbeSeconds ?? 0 }
        #expect(abs(probes[0] - 0.017) < 1e-9 && abs(probes[1] - 0.024) < 1e-9, "\(probes)")
        let fit = try #require(Growth.fits(results).first)
        #expect(fit.points.map(\.machine) == ["boot aaaaaaaa", "boot bbbbbbbb", "boot aaaaaaaa"])
        #expect(fit.steps.allSatisfy { $0.acrossMachines })
        // 10k and 1M, on one machine: b alone there is 1; the other machine measured one scale, too few to fit.
        #expect(fit.fits.map(\.machine) == ["boot aaaaaaaa"] && fit.acrossMachines)
        #expect(abs(fit.exponent - 1) < 1e-9 && fit.spread == nil)
        let report = MarkdownReport.render(results)
        #expect(report.contains("| 2/3 | boot bbbbbbbb | Slow CPU, "), "\(report)")
        // Shard 2's three cells ran 2 s each, within the minute from its start to its finish.
        #expect(report.contains("| 24 ms | 300 µs | 6 s | 1 min 00 s | get 100k |"), "\(report)")
        #expect(report.contains("the slowest's CPU probe 1.41× the fastest's, the slowest's fdatasync probe 3.00×"))
        #expect(report.contains("10k–100k (N^1.00, across machines)"), "\(report)")
        #expect(
            report.contains(
                "Measured on 2 machines: 10k, 1M on boot aaaaaaaa (CPU probe 17 ms, fdatasync 100 µs); "
                    + "100k on boot bbbbbbbb (CPU probe 24 ms, fdatasync 300 µs). "), "\(report)")
        #expect(report.contains("\n- `linear`: 1.00 on boot aaaaaaaa (10k, 1M)\n"), "\(report)")
        // The time chart draws the other machine's point (100k) hollow, and says whose the markers are.
        let chart = try #require(Charts.render(results).first { $0.name == "time-get.svg" }?.svg)
        #expect(
            chart.split(separator: "\n").filter { $0.contains("<circle") && $0.contains(#"fill="white""#) }.count == 1)
        #expect(chart.contains(">● boot aaaaaaaa</text>") && chart.contains(">○ boot bbbbbbbb</text>"), "\(chart)")
        // A run made in one go names no machine.
        results.shards = nil
        #expect(!MarkdownReport.render(results).contains("Measured on 2 machines"))
        #expect(Growth.fits(results).first?.steps.contains { $0.acrossMachines } == false)
    }

    @Test func oneScaleFitsNothing() {
        let results = Self.run(["a": { _, _ in 1e-6 }], scales: [10_000])
        #expect(Growth.fits(results).isEmpty)
        #expect(!MarkdownReport.render(results).contains("## How cost grows with N"))
    }
}
