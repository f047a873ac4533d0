import Foundation
import PersistenceBench
import Reports
import Testing

/// `RunComparison`'s rule on synthetic runs, and `compare`/`check` on the real executable.
@Suite struct ComparisonTests {
    static let stores = ["a", "b", "c", "d"]
    static let workloads = ["insert", "scan", "get", "update", "delete"]

    /// A run of `stores` × `workloads` at 1k with three repetitions. `seconds(store, workload, repetition)` gives
    /// each cell's timed seconds (100 operations); `calibration` every cell's calibration.
    static func run(
        calibration: Double? = 0.02, seed: UInt64 = 1,
        seconds: (String, String, Int) -> Double = { _, _, _ in 1 },
        edit: (inout CellResult) -> Void = { _ in }
    ) -> RunResults {
        let configuration = RunConfiguration(
            stores: stores, workloads: workloads, scales: [Scale(records: 1000)], repetitions: 3, seed: seed,
            batchSize: 10, timeBudgetSeconds: 60, memoryBudgetBytes: 1 << 30, keepStores: false)
        let environment = RunEnvironment(
            cpuModel: "Test CPU", cores: 2, memoryBytes: 1 << 30, kernel: "Linux", hostname: "h", swift: "Swift",
            engines: [:], gitCommit: "abc", command: "persistbench run")
        var results = RunResults(
            environment: environment, configuration: configuration, startedAt: Date(timeIntervalSince1970: 0))
        for workload in workloads {
            for repetition in 1...3 {
                for store in stores {
                    var cell = CellResult(
                        store: store, workload: workload, scale: Scale(records: 1000), repetition: repetition,
                        status: .ok,
                        metrics: CellMetrics(
                            timedSeconds: seconds(store, workload, repetition), operations: 100, latency: nil,
                            rssAnonBytes: nil, rssFileBytes: nil, storageWriteBytes: nil,
                            timedPeakRSSBytes: 30 << 20, bytesOnDisk: 8192,
                            digest: Digest(count: 100, hash: UInt64(workload.count)),
                            calibrationSeconds: calibration),
                        process: ProcessUsage(
                            wallSeconds: 2, userCPUSeconds: 1, systemCPUSeconds: 0, peakRSSBytes: 40 << 20))
                    edit(&cell)
                    results.cells.append(cell)
                }
            }
        }
        return results
    }

    /// Repetition-to-repetition noise of ±8 %, the same pattern in both runs' cells but shifted.
    static func noisy(_ store: String, _ workload: String, _ repetition: Int) -> Double {
        1 + 0.08 * sin(Double(repetition * 7 + workload.count * 3 + store.count))
    }

    @Test func anUnchangedRunPasses() throws {
        let comparison = try RunComparison(baseline: Self.run(seconds: Self.noisy), current: Self.run())
        #expect(comparison.regressions.isEmpty, "\(comparison.regressions)")
        #expect(comparison.cells.count == 20)
        #expect(comparison.stores.map(\.verdict) == [.same, .same, .same, .same])
    }

    @Test func aSlowerMachineIsNotARegression() throws {
        // Everything 60 % slower, and the calibration loop too.
        let slow = Self.run(calibration: 0.032, seconds: { 1.6 * Self.noisy($0, $1, $2) })
        let comparison = try RunComparison(baseline: Self.run(seconds: Self.noisy), current: slow)
        #expect(comparison.regressions.isEmpty, "\(comparison.regressions)")
        #expect(abs(comparison.stores[0].timeRatio - 1) < 0.05)
        // Without calibration in one run, times are compared as measured: the typical store is ×1.6, a change
        // every store shares, beyond its band; no store is worse than the others.
        let uncalibrated = try RunComparison(
            baseline: Self.run(calibration: nil, seconds: Self.noisy), current: slow)
        #expect(uncalibrated.typicalVerdict == .worse)
        #expect(uncalibrated.stores.allSatisfy { $0.verdict == .same })
        #expect(uncalibrated.regressions.count == 1)
    }

    @Test func aDriftTheCalibrationMissesIsJudgedAgainstTheTypicalStore() throws {
        // Every store 20 % slower with the calibration unchanged (the disk, not the CPU): within the typical
        // band, and no store stands out.
        let drift = Self.run { 1.2 * Self.noisy($0, $1, $2) }
        let comparison = try RunComparison(baseline: Self.run(seconds: Self.noisy), current: drift)
        #expect(comparison.regressions.isEmpty, "\(comparison.regressions)")
        #expect(abs(comparison.typicalTimeRatio - 1.2) < 0.05)
        #expect(comparison.stores.allSatisfy { abs($0.relativeRatio - 1) < 0.05 })
    }

    @Test func oneStore30PercentSlowerIsCaughtAndNamed() throws {
        let current = Self.run { store, workload, repetition in
            (store == "b" ? 1.3 : 1) * Self.noisy(store, workload, repetition + 1)
        }
        let comparison = try RunComparison(baseline: Self.run(seconds: Self.noisy), current: current)
        let b = try #require(comparison.stores.first { $0.store == "b" })
        #expect(b.verdict == .worse)
        #expect(abs(b.timeRatio - 1.3) < 0.1)
        #expect(comparison.stores.filter { $0.verdict == .same }.map(\.store) == ["a", "c", "d"])
        #expect(comparison.regressions.count == 1)
        #expect(comparison.regressions.first?.hasPrefix("b: time ×1.") == true)
    }

    @Test func aCellFarOutsideItsBandIsWorseAndASpreadWidensTheBand() throws {
        let slowScan = Self.run { store, workload, _ in store == "a" && workload == "scan" ? 3 : 1 }
        let comparison = try RunComparison(baseline: Self.run(), current: slowScan)
        let scan = try #require(comparison.cells.first { $0.store == "a" && $0.workload == "scan" })
        #expect(scan.verdict == .worse)
        #expect(comparison.regressions.contains { $0.hasPrefix("a scan 1k: time/op") })
        // The same median, but the baseline's repetitions ranged 1 to 2.5: the band is wider than ×3.
        let spreadBaseline = Self.run { store, workload, repetition in
            store == "a" && workload == "scan" ? [1, 2.5, 2][repetition - 1] : 1
        }
        let wide = try RunComparison(baseline: spreadBaseline, current: slowScan)
        let wideScan = try #require(wide.cells.first { $0.store == "a" && $0.workload == "scan" })
        let time = try #require(wideScan.changes.first { $0.metric == "time/op" })
        #expect(time.band! > 3)
        #expect(time.verdict == .same)
    }

    @Test func stableMetricsAreComparedStrictly() throws {
        let moreBytes = Self.run(edit: { cell in
            if cell.store == "b" && cell.workload == "insert" { cell.metrics!.bytesOnDisk += 1 }
        })
        let bytes = try RunComparison(baseline: Self.run(), current: moreBytes)
        #expect(bytes.regressions == ["b insert 1k: bytes on disk 8192 → 8193"])

        let fewerBytes = Self.run(edit: { cell in if cell.store == "b" { cell.metrics!.bytesOnDisk -= 1 } })
        #expect(try RunComparison(baseline: Self.run(), current: fewerBytes).regressions.isEmpty)

        let otherDigest = Self.run(edit: { cell in
            if cell.store == "a" && cell.workload == "get" { cell.metrics!.digest = Digest(count: 100, hash: 7) }
        })
        let digests = try RunComparison(baseline: Self.run(), current: otherDigest)
        #expect(digests.digestDisagreements == ["get at 1k"])
        #expect(digests.regressions.contains { $0.hasPrefix("a get 1k: digest") })

        let bigger = Self.run(edit: { cell in cell.metrics!.timedPeakRSSBytes = 60 << 20 })
        #expect(try RunComparison(baseline: Self.run(), current: bigger).regressions.count == 20)
    }

    @Test func aCellThatNoLongerFinishesIsARegression() throws {
        let dnf = Self.run(edit: { cell in
            if cell.store == "a" && cell.workload == "update" {
                cell.status = .dnf
                cell.reason = "over its time budget"
                cell.metrics = nil
            }
        })
        let comparison = try RunComparison(baseline: Self.run(), current: dnf)
        #expect(comparison.regressions == ["a update 1k: status ok → dnf: over its time budget"])
    }

    @Test func differentSeedsCannotBeCompared() {
        #expect(throws: BenchError.self) { try RunComparison(baseline: Self.run(), current: Self.run(seed: 2)) }
    }

    @Test func checkExitsZeroOneOrTwoAndWritesItsSummary() throws {
        let directory = try TemporaryDirectory()
        func write(_ results: RunResults, _ name: String) throws -> String {
            let url = directory.url.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            try results.jsonData().write(to: url.appendingPathComponent("results.json"))
            return url.path
        }
        let base = try write(Self.run(), "base")
        let same = try write(Self.run(), "same")
        let slow = try write(Self.run { store, _, _ in store == "a" ? 1.3 : 1 }, "slow")
        let otherSeed = try write(Self.run(seed: 9), "seed")

        let pass = try runTool(["check", "--baseline", base, "--current", same])
        #expect(pass.status == 0, "\(pass.output)")
        #expect(pass.output.contains("PASS"))
        let summary = try String(contentsOfFile: same + "/check.md", encoding: .utf8)
        #expect(summary.hasPrefix("# ✅ No regression"))

        let fail = try runTool(["check", "--baseline", base, "--current", slow + "/results.json"])
        #expect(fail.status == 1, "\(fail.output)")
        #expect(fail.output.contains("a: time ×1.30 relative to the typical store"))
        #expect(try String(contentsOfFile: slow + "/check.md", encoding: .utf8).contains("## Regressions"))

        let compare = try runTool(["compare", base, slow])
        #expect(compare.status == 0)
        #expect(compare.output.contains("| `a` | 5 | ×1.30 | ×1.30 |"))

        for (arguments, message) in [
            (["check", "--baseline", base, "--current", otherSeed], "different seeds"),
            (["check", "--baseline", directory.url.path + "/none"], "no such file or directory"),
            (["compare", base, directory.url.path], "cannot read"),
        ] {
            let bad = try runTool(arguments)
            #expect(bad.status == 2, "\(arguments): \(bad.output)")
            #expect(bad.output.contains(message), "\(arguments): \(bad.output)")
        }
    }
}
