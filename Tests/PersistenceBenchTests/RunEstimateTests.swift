import Foundation
import Testing

@testable import PersistenceBench

/// What a long run says about how long: the estimate from cells measured, and `run --dry-run`.
@Suite struct RunEstimateTests {
    static func cell(_ store: String, _ workload: String, _ records: Int, seconds: Double) -> CellResult {
        var cell = CellResult(
            store: store, workload: workload, scale: Scale(records: records), repetition: 1, status: .ok)
        cell.runSeconds = seconds
        return cell
    }

    @Test func measuredCellsAreExtrapolatedByTheirGrowth() throws {
        let estimate = RunEstimate(measured: [
            Self.cell("a", "insert", 10_000, seconds: 0.9), Self.cell("a", "insert", 10_000, seconds: 1.1),
            Self.cell("a", "insert", 100_000, seconds: 10), Self.cell("a", "insert", 1_000_000, seconds: 100),
            Self.cell("b", "insert", 10_000, seconds: 4),
            Self.cell("b", "get", 10_000, seconds: 2),
        ])
        // Measured at its scale: the median.
        #expect(estimate.seconds(store: "a", workload: "insert", scale: Scale(records: 10_000)) == 1)
        // Beyond: the power law over the largest three scales (here t ∝ N).
        let tenMillion = try #require(
            estimate.seconds(store: "a", workload: "insert", scale: Scale(records: 10_000_000)))
        #expect(abs(tenMillion - 1000) / 1000 < 0.05, "\(tenMillion)")
        // One scale only: in proportion to N.
        #expect(estimate.seconds(store: "b", workload: "insert", scale: Scale(records: 100_000)) == 40)
        // Never measured: the workload's median seconds per record, else every cell's.
        let c = try #require(estimate.seconds(store: "c", workload: "get", scale: Scale(records: 100_000)))
        #expect(abs(c - 20) < 1e-9)
        #expect(estimate.seconds(store: "c", workload: "scan", scale: Scale(records: 10_000)) != nil)
        #expect(RunEstimate(measured: []).seconds(store: "a", workload: "insert", scale: Scale(records: 1)) == nil)
    }

    @Test(.tags(.endToEnd), .timeLimit(.minutes(10))) func aDryRunPrintsThePlanAndRunsNothing() throws {
        let directory = try TemporaryDirectory()
        let earlier = directory.url.appendingPathComponent("earlier").path
        #expect(
            try runTool([
                "run", "--stores", "memory,sqlite", "--workloads", "insert,scan", "--scales", "1k", "--repetitions",
                "1",
                "--out", earlier,
            ]).status == 0)
        let out = directory.url.appendingPathComponent("never").path
        let plan = try runTool([
            "run", "--dry-run", "--stores", "memory,sqlite", "--workloads", "insert,scan", "--scales", "1k,10k",
            "--shard", "1/2", "--estimate-from", earlier, "--out", out,
        ])
        #expect(plan.status == 0, "\(plan.output)")
        #expect(plan.output.contains("Plan: 12 cells in 2 (workload, scale) group(s) (shard 1/2 of the matrix)"))
        #expect(plan.output.contains("Estimate: about"), "\(plan.output)")
        #expect(!FileManager.default.fileExists(atPath: out))
        let blind = try runTool(["run", "--dry-run", "--scales", "10k"])
        #expect(blind.status == 0 && blind.output.contains("No estimate"), "\(blind.output)")
    }
}
