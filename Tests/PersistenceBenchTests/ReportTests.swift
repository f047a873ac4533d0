import Foundation
import Reports
import Testing

@testable import PersistenceBench

#if canImport(FoundationXML)
    import FoundationXML
#endif

@Suite struct ReportTests {
    @Test(arguments: [
        ("plain", "plain"), ("a,b", "\"a,b\""), ("say \"hi\"", "\"say \"\"hi\"\"\""), ("two\nlines", "\"two\nlines\""),
        ("", ""),
    ])
    func csvFieldsAreQuotedPerRFC4180(field: String, quoted: String) {
        #expect(CSVReport.quote(field) == quoted)
    }

    func sampleResults() -> RunResults {
        let environment = RunEnvironment(
            cpuModel: "Test CPU", cores: 2, memoryBytes: 1 << 30, kernel: "Linux", hostname: "h", swift: "Swift",
            engines: ["a": "A 1", "b": "B 2"], gitCommit: "abc", command: "persistbench run")
        let configuration = RunConfiguration(
            stores: ["a", "b"], workloads: ["scan"], scales: [Scale(records: 100)], repetitions: 2, seed: 1,
            batchSize: 10, timeBudgetSeconds: 60, memoryBudgetBytes: 1 << 30, keepStores: false)
        var results = RunResults(
            environment: environment, configuration: configuration,
            startedAt: Date(timeIntervalSince1970: 1_800_000_000))
        func metrics(_ seconds: Double, _ digest: Digest) -> CellMetrics {
            CellMetrics(
                phase: PhaseFigures(timedSeconds: seconds, operations: 100),
                resources: ResourceFigures(
                    rssAnonBytes: 3 << 20, rssFileBytes: 300 << 20, storageWriteBytes: 0, bytesOnDisk: 4096),
                verification: CellVerification(digest: digest))
        }
        let usage = ProcessUsage(wallSeconds: 1, userCPUSeconds: 0.5, systemCPUSeconds: 0.1, peakRSSBytes: 1 << 20)
        let same = Digest(count: 100, hash: 42)
        results.cells = [
            CellResult(
                CellID(store: "a", workload: "scan", scale: Scale(records: 100), repetition: 1), status: .ok,
                metrics: metrics(0.1, same), process: usage),
            CellResult(
                CellID(store: "b", workload: "scan", scale: Scale(records: 100), repetition: 1), status: .ok,
                metrics: metrics(0.2, same), process: usage),
            CellResult(
                CellID(store: "a", workload: "scan", scale: Scale(records: 100), repetition: 2), status: .ok,
                metrics: metrics(0.1, same), process: usage),
            CellResult(
                CellID(store: "b", workload: "scan", scale: Scale(records: 100), repetition: 2), status: .dnf,
                reason: "over the time budget, with a | pipe", process: usage),
        ]
        return results
    }

    /// The summary names the fastest store per scale and where the lead changes, from the cells alone: `b` leads at
    /// 100, `a` at 1k and 10k; `b` stops at 10k, the floor never leads, nor does a maintained count; stores measured
    /// only at smaller scales say how far they were measured.
    ///
    /// The read-ahead of each block device (loop and RAM devices left out) is part of the environment, and the report
    /// says it: a mapped store's cold lookups depend on it.
    @Test func theEnvironmentRecordsPersistenceBenchsOwnCommitWhereTheToolIsAnotherPackages() throws {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        // Run from this checkout, the working directory's commit is PersistenceBench's: nothing more to say.
        #expect(RunEnvironment.persistenceBenchCommit(workingDirectory: repository) == nil)
        // Run from another package's directory (here none at all), its own commit is recorded.
        let elsewhere = try TemporaryDirectory()
        let own = try #require(RunEnvironment.persistenceBenchCommit(workingDirectory: elsewhere.url.path))
        #expect(own.prefix(12).allSatisfy(\.isHexDigit) && !own.hasPrefix("unknown"), "\(own)")
        var results = sampleResults()
        results.environment.persistenceBenchCommit = own
        #expect(MarkdownReport.render(results).contains("; PersistenceBench \(own) |"))
    }

    @Test func theEnvironmentRecordsEachDevicesReadAhead() throws {
        let blocks = try TemporaryDirectory()
        for (device, kilobytes) in [("vda", "8192\n"), ("loop0", "128\n"), ("nvme0n1", "128\n")] {
            let queue = blocks.url.appendingPathComponent("\(device)/queue")
            try FileManager.default.createDirectory(at: queue, withIntermediateDirectories: true)
            try Data(kilobytes.utf8).write(to: queue.appendingPathComponent("read_ahead_kb"))
        }
        #expect(RunEnvironment.readAhead(in: blocks.url.path) == ["vda": 8192, "nvme0n1": 128])
        #expect(RunEnvironment.readAhead(in: blocks.url.appendingPathComponent("none").path) == nil)
        var results = sampleResults()
        #expect(!MarkdownReport.render(results).contains("| Read-ahead |"))
        results.environment.readAheadKilobytes = ["vda": 8192, "nvme0n1": 128]
        #expect(MarkdownReport.render(results).contains("| Read-ahead | nvme0n1 128 KiB, vda 8192 KiB |"))
    }

    @Test func theSummarySaysWhereTheLeadChangesAndWhereEachStoreStops() {
        var results = sampleResults()
        let same = Digest(count: 100, hash: 42)
        func cell(
            _ store: String, _ records: Int, seconds: Double?, maintained: Bool? = nil, workload: String = "get"
        ) -> CellResult {
            var metrics = CellMetrics(
                phase: PhaseFigures(timedSeconds: seconds ?? 1, operations: 100),
                resources: ResourceFigures(bytesOnDisk: 1), verification: CellVerification(digest: same))
            metrics.verification.maintainedCount = maintained
            return CellResult(
                CellID(store: store, workload: workload, scale: Scale(records: records), repetition: 1),
                status: seconds == nil ? .dnf : .ok, reason: seconds == nil ? "over the time budget of 1 s; more" : nil,
                metrics: seconds == nil ? nil : metrics)
        }
        results.cells = [
            cell("a", 100, seconds: 0.2), cell("b", 100, seconds: 0.1),
            cell(StoreKind.harnessFloorName, 100, seconds: 0.01),
            cell("a", 1_000, seconds: 0.2), cell("b", 1_000, seconds: 0.3),
            cell("c", 1_000, seconds: 0.01, maintained: true),
            cell("a", 10_000, seconds: 0.2), cell("b", 10_000, seconds: nil),
            cell("a", 100, seconds: 0.1, workload: "scan"), cell("b", 100, seconds: 0.2, workload: "scan"),
            cell("a", 100, seconds: 0.1, workload: "page"), cell("a", 100, seconds: 0.3, workload: "page"),
            cell("b", 100, seconds: 0.2, workload: "page"), cell("b", 100, seconds: 0.25, workload: "page"),
        ]
        let markdown = MarkdownReport.render(results)
        #expect(
            markdown.contains(
                "| get | `b` at 100; `a` at 1k–10k (the lead changes between 100 and 1k) | `b` 1k (DNF at 10k: over "
                    + "the time budget of 1 s) · `memory` 100 · `c` 1k · `a` 10k |"), "\(markdown)")
        // A workload the run measured only at 100 stops nowhere short: every store that ran it reached its largest.
        #expect(markdown.contains("| scan | `a` at 100 | every store 100 |"), "\(markdown)")
        // `a` leads `page` on its median, but `b`'s faster repetition beats `a`'s slower one: within noise.
        #expect(
            markdown.contains("| page | `a` at 100 (within the repetitions' range: `b`) | every store 100 |"),
            "\(markdown)")
    }

    @Test func csvHasOneRowPerCellAndTheDocumentedColumns() {
        let csv = CSVReport.render(sampleResults())
        let lines = csv.split(separator: "\n")
        #expect(lines.count == 5)
        #expect(lines[0] == Substring(CSVReport.columns.joined(separator: ",")))
        #expect(lines[4].contains("dnf,\"over the time budget, with a | pipe\""))
    }

    @Test func markdownMarksTheBestAndShowsRatiosAndAgreement() {
        let markdown = MarkdownReport.render(sampleResults())
        #expect(markdown.contains("| `a` | **1.00k ops/s** ★ (1.00k–1.00k) · 1.00×"))
        #expect(markdown.contains("| `b` | 500 ops/s · 2.00×"))
        #expect(markdown.contains("1 rep(s) DNF"))
        #expect(markdown.contains("Digests: 1 of 1"))
        #expect(markdown.contains("| `a` | 3.0 MiB + 300 MiB |"))
        #expect(!markdown.contains("MISMATCH"))
        #expect(markdown.contains("| Budgets | 1 min and 1.0 GiB per cell |"))
        var sweep = sampleResults()
        sweep.configuration.timeBudgetSeconds = 1800
        sweep.configuration.fixtureTimeBudgetSeconds = 3600
        #expect(
            MarkdownReport.render(sweep).contains(
                "| Budgets | 30 min and 1.0 GiB per cell; 1 h per fixture load (untimed setup) |"))
    }

    /// A workload's kinds in the order it declares them (`WorkloadReport.operationKinds`: YCSB's READ before
    /// INSERT), whatever the workload.
    @Test func operationKindsGetTheirOwnLatencyTableAndCSVColumn() {
        var results = sampleResults()
        let ycsb = YCSBWorkload(.d)
        #expect(ycsb.report.operationKinds.firstIndex(of: .read)! < ycsb.report.operationKinds.firstIndex(of: .insert)!)
        for index in results.cells.indices { results.cells[index].workload = ycsb.name }
        let read = LatencySummary(count: 1_000, p50: 1.5, p95: 2.5, p99: 4, p999: 9, max: 12)
        let insert = LatencySummary(count: 5, p50: 150, p95: 250, p99: 400, p999: 900, max: 1200)
        results.cells[0].metrics?.phase.latencyByOperation = ["READ": read, "INSERT": insert]
        let markdown = MarkdownReport.render(results)
        #expect(markdown.contains("| store | scale | [READ] | [INSERT] |"))
        // Each kind with its n; a percentile its samples cannot give reads –, and the slowest is the max.
        #expect(
            markdown.contains("| `a` | 100 | 1.50 / 2.50 / 4.00 / 9.00 (n 1,000) | 150 / – / – / – (n 5, max 1200) |"),
            "\(markdown)")
        var fewer = results
        fewer.cells[0].metrics?.phase.latencyByOperation?["READ"]?.count = 999
        #expect(MarkdownReport.render(fewer).contains("| `a` | 100 | 1.50 / 2.50 / 4.00 / – (n 999, max 12.0) |"))
        #expect(markdown.contains("| `b` | 100 | – | – |"))
        let csv = CSVReport.render(results)
        // The 16 columns after it (the probe, the timed phase's counters, settle, maintained count, time box, steps,
        // memory growth, work note, harness, reads and faults) are empty for this sample.
        #expect(
            csv.contains(
                ",INSERT 150.000/250.000/400.000/900.000; READ 1.500/2.500/4.000/9.000\(String(repeating: ",", count: 16))\n"
            ))
        // Workloads without kinds have no such table.
        #expect(!MarkdownReport.render(sampleResults()).contains("Latency by kind of operation"))
        // A kind the workload does not declare (results of another version) comes after the declared ones.
        results.cells[0].metrics?.phase.latencyByOperation?["ANOTHER"] = read
        #expect(MarkdownReport.render(results).contains("| store | scale | [READ] | [INSERT] | [ANOTHER] |"))
    }

    /// The limits section holds each workload that declares a machine's limit (`WorkloadReport.machineLimit`)
    /// against it, and the bytes-on-disk section is for the workloads that declare it: none is named by the report.
    @Test func limitsAndBytesOnDiskComeFromTheWorkloadsDeclarations() {
        var results = sampleResults()
        let declared = WorkloadCatalog.all.filter { $0.report.machineLimit != nil }.map(\.name)
        #expect(declared == ["insert", "scan"])
        results.cells = results.cells.filter { $0.status == .ok && $0.store == "a" }
        results.cells[0].workload = InsertWorkload().name
        results.cells[1].workload = LimitWriteWorkload().name
        results.cells[1].repetition = 1
        results.cells[1].metrics?.phase.timedSeconds = 0.05
        let markdown = MarkdownReport.render(results)
        #expect(markdown.contains("| store | scale | insert ÷ limit-write | scan ÷ limit-scan |"))
        #expect(markdown.contains("| `a` | 100 | 0.50 (1.00k of 2.00k items/s) | – |"))
        #expect(markdown.contains("## Bytes on disk after `insert`"))
        #expect(!markdown.contains("## Bytes on disk after `limit-write`"))
    }

    /// A cell where a store does other work says so; its memory is shown as the timed phase's peak and the growth
    /// over the process before the store opened, which the per-record chart divides by the records.
    @Test func cellsShowWorkNotesAndMemoryGrowth() throws {
        var results = sampleResults()
        for index in results.cells.indices where results.cells[index].store == "a" {
            results.cells[index].metrics?.verification.workNote = "one save after the whole load"
            results.cells[index].metrics?.resources.timedPeakRSSBytes = 30 << 20
            results.cells[index].metrics?.resources.baselineRSSBytes = 20 << 20
        }
        #expect(results.cells[0].metrics?.resources.rssGrowthBytes == 10 << 20)
        let markdown = MarkdownReport.render(results)
        #expect(markdown.contains("30.0 MiB (+10.0 MiB) · one save after the whole load"), "\(markdown)")
        let csv = CSVReport.render(results)
        #expect(csv.contains(",\(10 << 20),one save after the whole load,,,,\n"), "\(csv)")
        // Page faults per operation get their table once a cell recorded them.
        #expect(!markdown.contains("Page faults per operation"))
        for index in results.cells.indices where results.cells[index].store == "a" {
            let operations = results.cells[index].metrics?.phase.operations ?? 0
            results.cells[index].metrics?.resources.phaseMinorFaults = Int64(operations / 4)
            results.cells[index].metrics?.resources.phaseMajorFaults = 0
        }
        let faults = MarkdownReport.render(results)
        #expect(faults.contains("Page faults per operation in the timed phase, minor / major"), "\(faults)")
        #expect(faults.contains("| `a` | 0.25 / 0.00 |"), "\(faults)")
        #expect(CSVReport.render(results).contains(",\(10 << 20),one save after the whole load,,"))
        let chart = try #require(Charts.render(results).first { $0.0 == Charts.memoryFileName }?.1)
        // 10 MiB over 100 records: 104,858 B per record, for `a` only (`b` has no baseline).
        #expect(chart.contains(">a</text>") && !chart.contains(">b</text>"), "\(chart)")
    }

    /// The harness's share: the largest median over a cell's repetitions, and the largest single repetition.
    @Test func theHarnessShareIsStatedAsAMedianAndAsTheWorstRepetition() {
        var results = sampleResults()
        // a: 0.1 s timed twice, its floor 2 ms and 8 ms (median 5%, worst 8%); b: 0.2 s, its floor 6 ms (3%).
        let floors: [(String, Int, Double)] = [("a", 1, 0.002), ("a", 2, 0.008), ("b", 1, 0.006)]
        for (store, repetition, seconds) in floors {
            let index = results.cells.firstIndex { $0.store == store && $0.repetition == repetition }!
            results.cells[index].metrics?.phase.harnessSeconds = seconds
        }
        let markdown = MarkdownReport.render(results)
        #expect(
            markdown.contains(
                "at most 5.0% of a cell's timed seconds, median over its repetitions, in this run (a scan at 100); "
                    + "8.0% in a single repetition (a scan at 100, repetition 2)"), "\(markdown)")
    }

    @Test func aDigestMismatchIsShownLoudly() {
        var results = sampleResults()
        results.cells[1].metrics?.verification.digest = Digest(count: 100, hash: 43)
        #expect(results.digestChecks.first?.agreed == false)
        let markdown = MarkdownReport.render(results)
        #expect(markdown.contains("DIGEST MISMATCH"))
    }

    /// Every cell of a group is compared whole, boxed or not: boxed cells did the group's count of steps; a store
    /// whose answers differ disagrees.
    ///
    /// Boxed cells of runs recorded before that rule (no steps) are left out.
    @Test func everyCellOfAGroupIsComparedWhole() {
        func cell(_ store: String, steps: Int?, boxed: Bool, hash: UInt64 = 7) -> CellResult {
            var metrics = CellMetrics(
                phase: PhaseFigures(timedSeconds: 1, operations: steps ?? 10_000),
                resources: ResourceFigures(bytesOnDisk: 1),
                verification: CellVerification(digest: Digest(count: steps ?? 10_000, hash: hash)))
            metrics.verification.timeBoxed = boxed ? true : nil
            metrics.verification.steps = steps
            return CellResult(
                CellID(store: store, workload: "get", scale: Scale(records: 10_000), repetition: 1), status: .ok,
                reason: nil, metrics: metrics)
        }
        let checks = DigestCheck.checks(of: [cell("a", steps: 734, boxed: true), cell("b", steps: 734, boxed: true)])
        #expect(checks.count == 1)
        #expect(checks[0].agreed && checks[0].steps == 734, "\(checks)")
        #expect(checks[0].digests.keys.sorted() == ["a", "b"])
        let wrong = DigestCheck.checks(of: [
            cell("a", steps: 734, boxed: true), cell("b", steps: 734, boxed: true, hash: 8),
        ])[0]
        #expect(!wrong.agreed)
        #expect(wrong.digestsDescription == "a 734:0000000000000007; b 734:0000000000000008", "\(wrong)")
        // No box: compared whole, no count of steps named.
        let full = DigestCheck.checks(of: [cell("a", steps: 10_000, boxed: false), cell("b", steps: nil, boxed: false)])
        #expect(full[0].agreed && full[0].steps == nil)
        // A legacy boxed cell (no steps) is not compared.
        let legacy = DigestCheck.checks(of: [
            cell("a", steps: nil, boxed: false), cell("b", steps: nil, boxed: true, hash: 9),
        ])
        #expect(legacy[0].agreed && legacy[0].digests.keys.sorted() == ["a"])
    }

    @Test func chartsAreWrittenLinkedAndWellFormed() throws {
        let directory = try TemporaryDirectory()
        var results = sampleResults()
        // A second scale, so that the lines have two points.
        results.cells += results.cells.map { cell in
            var bigger = cell
            bigger.scale = Scale(records: 10_000)
            return bigger
        }
        // The memory chart draws growth over the process before the store opened.
        for index in results.cells.indices {
            results.cells[index].metrics?.resources.baselineRSSBytes = 20 << 20
            results.cells[index].metrics?.resources.timedPeakRSSBytes = 30 << 20
        }
        try ReportWriter.write(results, to: directory.url)
        let charts = directory.url.appendingPathComponent("charts")
        let markdown = try String(contentsOf: directory.url.appendingPathComponent("report.md"), encoding: .utf8)
        for name in ["throughput-scan.svg", "memory-per-record.svg"] {
            let svg = try Data(contentsOf: charts.appendingPathComponent(name))
            let parser = XMLParser(data: svg)
            #expect(parser.parse(), "\(name) is not well-formed XML")
            let text = String(decoding: svg, as: UTF8.self)
            #expect(text.contains("records in the data set (log scale)"))
            #expect(text.contains(">100</text>") && text.contains(">1k</text>") && text.contains(">10k</text>"))
            #expect(text.contains(">a</text>") && text.contains(">b</text>"), "legend of \(name)")
            #expect(text.contains("<polyline"))
            #expect(markdown.contains("](charts/\(name))"))
        }
        #expect(
            try String(contentsOf: charts.appendingPathComponent("throughput-scan.svg"), encoding: .utf8)
                .contains("operations per second"))
    }

    @Test func resultsRoundTripThroughJSON() throws {
        let directory = try TemporaryDirectory()
        let results = sampleResults()
        try ReportWriter.write(results, to: directory.url)
        let loaded = try RunResults.load(from: directory.url.appendingPathComponent("results.json"))
        #expect(loaded == results)
        let json = try String(contentsOf: directory.url.appendingPathComponent("results.json"), encoding: .utf8)
        #expect(json.contains("\"schemaVersion\" : 1"))
        #expect(json.contains("\"operationsPerSecond\""))
        #expect(json.contains("\"digestChecks\""))
    }

    /// A running matrix's results.json, each cell encoded once, is byte for byte the whole run's encoding: at the
    /// start, as cells arrive, when a finished cell is replaced (a first repetition run again on its group's
    /// count) and when the run finishes.
    ///
    /// On a committed run of the default matrix (every kind of cell: n/a, time- boxed, latencies by operation,
    /// timelines).
    @Test func resultsJSONWrittenCellByCellIsTheWholeRunsEncoding() throws {
        let run = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("results/2026-11-25-default-fast/results.json")
        let whole = try RunResults.load(from: run)
        var growing = whole
        growing.cells = []
        growing.finishedAt = nil
        var encoder = IncrementalResultsEncoder()
        #expect(try encoder.jsonData(of: growing) == growing.jsonData())
        for (index, cell) in whole.cells.enumerated() {
            growing.cells.append(cell)
            if [0, 1, 250].contains(index) { #expect(try encoder.jsonData(of: growing) == growing.jsonData()) }
        }
        // Changed, with an empty array (written over three lines, the middle one blank) and a message on two lines.
        growing.cells[1].metrics?.verification.digest = Digest(count: 1, hash: 7)
        growing.cells[1].metrics?.phase.timeline = []
        growing.cells[1].reason = "one\ntwo"
        #expect(try encoder.jsonData(of: growing) == growing.jsonData())
        growing.cells[1] = whole.cells[1]
        growing.finishedAt = whole.finishedAt
        #expect(try encoder.jsonData(of: growing) == whole.jsonData())
    }
}
