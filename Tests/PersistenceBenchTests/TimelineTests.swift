import Foundation
import PersistenceBench
import Reports
import Testing

/// Every cell records its timed phase per second: operations done and the window's p99.
@Suite struct TimelineTests {
    @Test func windowsCountOperationsAndLatenciesPerSecond() {
        let second = Timeline.windowNanoseconds
        let timeline = Timeline(start: 1_000)
        timeline.count(5, at: 1_000)
        timeline.record(latency: 2_000, at: 1_000 + second - 1)
        timeline.count(7, at: 1_000 + 2 * second)
        let windows = timeline.windows
        #expect(windows.map(\.second) == [0, 1, 2])
        #expect(windows.map(\.operations) == [5, 0, 7])
        #expect(windows[0].p99 == 2)
        #expect(windows[1].p99 == nil && windows[2].p99 == nil)
        // Restarting the timed phase starts the windows afresh.
        timeline.start = 5 * second
        #expect(timeline.windows == [TimelineWindow(second: 0, operations: 0, p99: nil)])
    }

    /// A real cell's timeline adds up to its operations, and the report charts cells that ran over 5 s.
    @Test func cellsRecordTheirTimelineAndLongCellsAreCharted() throws {
        let kind = try storeKind("sqlite")
        let workload = try #require(WorkloadCatalog.workload(named: "get"))
        let directory = try TemporaryDirectory()
        var metrics = try measureCell(workload, on: kind, in: directory.url, scale: 1_000, seed: 5, batchSize: 500)
        let timeline = try #require(metrics.phase.timeline)
        #expect(timeline.reduce(0) { $0 + $1.operations } == metrics.phase.operations)
        #expect(timeline.first?.p99 != nil)

        let configuration = RunConfiguration(
            stores: ["sqlite"], workloads: ["get"], scales: [Scale(records: 1_000)], repetitions: 1, seed: 5,
            batchSize: 500, timeBudgetSeconds: 60, memoryBudgetBytes: 1 << 30, keepStores: false)
        let environment = RunEnvironment(
            cpuModel: "Test CPU", cores: 2, memoryBytes: 1 << 30, kernel: "Linux", hostname: "h", swift: "Swift",
            engines: [:], gitCommit: "abc", command: "persistbench run")
        var results = RunResults(environment: environment, configuration: configuration, startedAt: Date())
        let cell = { (metrics: CellMetrics) in
            CellResult(
                CellID(store: "sqlite", workload: "get", scale: Scale(records: 1_000), repetition: 1), status: .ok,
                metrics: metrics)
        }
        results.cells = [cell(metrics)]
        #expect(!Charts.render(results).contains { $0.name.hasPrefix("timeline-") }, "a short cell has no chart")
        metrics.phase.phaseSeconds = 6
        results.cells = [cell(metrics)]
        let chart = try #require(Charts.render(results).first { $0.name == "timeline-get-1k.svg" })
        #expect(chart.svg.contains("<polyline") || timeline.count == 1)
        #expect(MarkdownReport.render(results).contains("(charts/timeline-get-1k.svg)"))
    }
}
