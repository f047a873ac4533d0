import Foundation
import PersistenceBench
import Reports
import Testing

/// `RunComparison`'s rule on synthetic runs, and `compare`/`check` on the real executable.
@Suite struct ComparisonTests {
    static let stores = ["a", "b", "c", "d"]
    static let workloads = ["insert", "scan", "get", "update", "delete", "insert-each"]

    /// A run of `stores` × `workloads` at 1k with three repetitions. `seconds(store, workload, repetition)` gives
    /// each cell's timed seconds (100 operations); `calibration` and `sync` every cell's probes. `insert-each`
    /// spends 70 % of its timed seconds off the CPU (wait-bound), the others none. Every run comes from one boot of
    /// one machine unless `boot` says otherwise.
    static func run(
        calibration: Double? = 0.02, sync: Double? = 0.0002, seed: UInt64 = 1, boot: String? = "boot-1",
        seconds: (String, String, Int) -> Double = { _, _, _ in 1 },
        edit: (inout CellResult) -> Void = { _ in }
    ) -> RunResults {
        let configuration = RunConfiguration(
            stores: stores, workloads: workloads, scales: [Scale(records: 1000)], repetitions: 3, seed: seed,
            batchSize: 10, timeBudgetSeconds: 60, memoryBudgetBytes: 1 << 30, keepStores: false)
        let environment = RunEnvironment(
            cpuModel: "Test CPU", cores: 2, memoryBytes: 1 << 30, kernel: "Linux", hostname: "h", swift: "Swift",
            engines: [:], gitCommit: "abc", command: "persistbench run", bootID: boot)
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
                            calibrationSeconds: calibration, syncCalibrationSeconds: sync,
                            phaseSeconds: seconds(store, workload, repetition),
                            phaseCPUSeconds: (workload == "insert-each" ? 0.3 : 1)
                                * seconds(store, workload, repetition),
                            phaseWaits: workload == "insert-each" ? 200 : 0),
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
        #expect(comparison.cells.count == 24)
        #expect(comparison.stores.map(\.verdict) == [.same, .same, .same, .same])
        #expect(comparison.bounds.map(\.bound) == [.cpu, .io])
        #expect(comparison.bounds.map(\.cells) == [20, 4])
        let insertEach = try #require(
            comparison.cells.first { $0.workload == "insert-each" }?.changes.first { $0.metric == "time/op" })
        #expect(insertEach.bound == .io)
        #expect(abs(insertEach.waitShare! - 0.7) < 1e-9)
        #expect(insertEach.waitsPerOperation == 2)
    }

    /// The host's memory slows (the CPU probe ×1.8) while compute does not: the one store whose lookups wait on
    /// memory as the probe does follows the probe, the others stay. Its cell is slower than its workload's
    /// typical store but not than the probe says the machine became: no regression. A cell slower than both is.
    @Test func aCellIsARegressionOnlyWhenSlowerThanBothTheProbeAndItsWorkloadsTypicalStore() throws {
        let baseline = Self.run(seconds: Self.noisy)
        let memorySlowed = Self.run(
            calibration: 0.036,
            seconds: { $0 == "a" && $1 == "get" ? 1.9 * Self.noisy($0, $1, $2) : Self.noisy($0, $1, $2) })
        let comparison = try RunComparison(baseline: baseline, current: memorySlowed)
        #expect(comparison.regressions.isEmpty, "\(comparison.regressions)")
        let slowerStill = Self.run(
            calibration: 0.036,
            seconds: { $0 == "a" && $1 == "get" ? 4 * Self.noisy($0, $1, $2) : Self.noisy($0, $1, $2) })
        let regressed = try RunComparison(baseline: baseline, current: slowerStill)
        #expect(regressed.regressions.contains { $0.hasPrefix("a get 1k: time/op") }, "\(regressed.regressions)")
    }

    @Test func aSlowerMachineIsNotARegression() throws {
        // Everything 2.5 × slower, and both probes too.
        let slow = Self.run(calibration: 0.05, sync: 0.0005, seconds: { 2.5 * Self.noisy($0, $1, $2) })
        let comparison = try RunComparison(baseline: Self.run(seconds: Self.noisy), current: slow)
        #expect(comparison.regressions.isEmpty, "\(comparison.regressions)")
        #expect(abs(comparison.stores[0].timeRatio - 1) < 0.05)
        #expect(comparison.bounds.map(\.probeRatio) == [2.5, 2.5])
        // Without the probes in one run, times are compared as measured: each bound's typical store is ×2.5, a
        // change every store shares, beyond its band; no store is worse than the others.
        let unprobed = try RunComparison(
            baseline: Self.run(calibration: nil, sync: nil, seconds: Self.noisy), current: slow)
        #expect(unprobed.bounds.map(\.verdict) == [.worse, .worse])
        #expect(unprobed.stores.allSatisfy { $0.verdict == .same })
        #expect(unprobed.regressions.count == 2)
    }

    @Test func aFasterCPUWithTheSameSyncLatencyIsNotARegression() throws {
        // What a sibling host did: CPU-bound cells ×0.6 with the loop unchanged, wait-bound cells ×0.85 (their CPU
        // part faster, their syncs not), store `a`'s CPU cells a little less faster than the others.
        let sibling = Self.run(boot: "boot-2") { store, workload, repetition in
            let factor = workload == "insert-each" ? 0.85 : store == "a" ? 0.66 : 0.6
            return factor * Self.noisy(store, workload, repetition + 1)
        }
        let comparison = try RunComparison(baseline: Self.run(seconds: Self.noisy), current: sibling)
        #expect(comparison.rule == .machineClass)
        #expect(comparison.regressions.isEmpty, "\(comparison.regressions)")
        #expect(abs(comparison.bounds[0].typicalRatio - 0.6) < 0.03)
        #expect(abs(comparison.bounds[1].typicalRatio - 0.85) < 0.05)
        // Judged against one typical store for every cell, `insert-each` would read ×1.4 and `a` ×1.13.
        let insertEach = comparison.cells.filter { $0.workload == "insert-each" }.compactMap {
            $0.changes.first { $0.metric == "time/op" }?.ratio
        }
        #expect(insertEach.allSatisfy { abs($0 - 1) < 0.1 }, "\(insertEach)")
    }

    @Test func aNoisyMinuteForOneWorkloadIsCancelledAndABrokenWorkloadIsCaught() throws {
        // Every store's `get` ×1.6 (the machine was busy while they ran back to back): its typical store takes it.
        let episode = Self.run { store, workload, repetition in
            (workload == "get" ? 1.6 : 1) * Self.noisy(store, workload, repetition + 1)
        }
        let comparison = try RunComparison(baseline: Self.run(seconds: Self.noisy), current: episode)
        #expect(comparison.regressions.isEmpty, "\(comparison.regressions)")
        let get = try #require(comparison.workloads.first { $0.workload == "get" })
        #expect(abs(get.typicalRatio - 1.6) < 0.1 && get.stores == 4 && get.verdict == .same)
        // ×2.5 for every store: beyond the workload band, a change to the workload rather than to a store.
        let broken = Self.run { _, workload, _ in workload == "get" ? 2.5 : 1 }
        let regressions = try RunComparison(baseline: Self.run(), current: broken).regressions
        #expect(regressions.count == 1, "\(regressions)")
        #expect(regressions.first?.hasPrefix("every store's get 1k: the typical store's time ×2.08") == true)
    }

    @Test func oneMoreSyncPerCommitInOneStoreIsCaughtAndNamed() throws {
        // `c`'s durable commits take 1.9 × as long (a second fdatasync); its other cells are unchanged.
        let current = Self.run { store, workload, repetition in
            (store == "c" && workload == "insert-each" ? 1.9 : 1) * Self.noisy(store, workload, repetition + 1)
        }
        let comparison = try RunComparison(baseline: Self.run(seconds: Self.noisy), current: current)
        #expect(comparison.regressions.count == 1, "\(comparison.regressions)")
        #expect(comparison.regressions.first?.hasPrefix("c insert-each 1k: time/op") == true)
        #expect(comparison.regressions.first?.contains("io-bound, band ×1.40") == true)
        // A cheaper extra sync: time ×1.3, inside its band, but twice the waits per operation.
        let cheaper = Self.run(
            seconds: { store, workload, repetition in
                (store == "c" && workload == "insert-each" ? 1.3 : 1) * Self.noisy(store, workload, repetition + 1)
            },
            edit: { cell in
                if cell.store == "c" && cell.workload == "insert-each" { cell.metrics!.phaseWaits = 400 }
            })
        let waits = try RunComparison(baseline: Self.run(seconds: Self.noisy), current: cheaper).regressions
        #expect(waits == ["c insert-each 1k: waits/op 2.00 → 4.00 (×2.00, band ×1.20)"])
    }

    @Test func boundsComeFromTheBaselineAndElseTheCurrentRun() throws {
        func unmeasured(_ cell: inout CellResult) {
            cell.metrics!.phaseSeconds = nil
            cell.metrics!.phaseCPUSeconds = nil
            cell.metrics!.phaseWaits = nil
        }
        // A regression that turns a CPU-bound cell into a waiting one is judged as the CPU-bound cell it was.
        let waiting = Self.run(edit: { cell in
            if cell.store == "a" && cell.workload == "get" { cell.metrics!.phaseCPUSeconds = 0 }
        })
        let fromBaseline = try RunComparison(baseline: Self.run(), current: waiting)
        let get = fromBaseline.cells.first { $0.store == "a" && $0.workload == "get" }?.changes.first
        #expect(get?.bound == .cpu)
        // An old baseline without counters: the current run's counters class the cells.
        let fromCurrent = try RunComparison(baseline: Self.run(edit: unmeasured), current: Self.run())
        #expect(fromCurrent.bounds.map(\.cells) == [20, 4])
        #expect(!fromCurrent.boundsUnmeasured)
        // Neither: every cell CPU-bound, and the summary says so.
        let neither = try RunComparison(baseline: Self.run(edit: unmeasured), current: Self.run(edit: unmeasured))
        #expect(neither.boundsUnmeasured)
        #expect(neither.bounds.map(\.cells) == [24])
        #expect(ComparisonReport.render(neither, baseline: "b", current: "c").contains("Neither run measured"))
    }

    @Test func theBandsFollowTheMachines() throws {
        var other = Self.run(boot: "boot-2")
        other.environment.cores = 8
        #expect(try RunComparison(baseline: Self.run(), current: Self.run()).rule == .sameMachine)
        #expect(try RunComparison(baseline: Self.run(), current: Self.run(boot: "boot-2")).rule == .machineClass)
        #expect(try RunComparison(baseline: Self.run(boot: nil), current: Self.run(boot: nil)).rule == .machineClass)
        #expect(try RunComparison(baseline: Self.run(), current: other).rule == .acrossMachineClasses)
        let summary = ComparisonReport.render(
            try RunComparison(baseline: Self.run(), current: other), baseline: "b", current: "c")
        #expect(summary.contains("Bands for machines of different classes"))
    }

    @Test func aDriftTheCalibrationMissesIsJudgedAgainstTheTypicalStore() throws {
        // Every store 20 % slower with the calibration unchanged (the disk, not the CPU): within the typical
        // band, and no store stands out.
        let drift = Self.run { 1.2 * Self.noisy($0, $1, $2) }
        let comparison = try RunComparison(baseline: Self.run(seconds: Self.noisy), current: drift)
        #expect(comparison.regressions.isEmpty, "\(comparison.regressions)")
        #expect(comparison.bounds.allSatisfy { abs($0.typicalRatio - 1.2) < 0.05 })
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
        #expect(b.cpuCells == 5 && b.ioCells == 1)
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
        #expect(try RunComparison(baseline: Self.run(), current: bigger).regressions.count == 24)
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
        #expect(fail.output.contains("a: time ×1.30 relative to its workloads' typical stores"))
        #expect(try String(contentsOfFile: slow + "/check.md", encoding: .utf8).contains("## Regressions"))

        let compare = try runTool(["compare", base, slow])
        #expect(compare.status == 0)
        #expect(compare.output.contains("| `a` | 6 (5 + 1) | ×1.30 | ×1.30 |"))

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
