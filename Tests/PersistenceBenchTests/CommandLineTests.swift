import Foundation
import PersistenceBench
import Testing

/// The real executable: its output and exit status.
@Suite struct CommandLineTests {
    @Test(.tags(.endToEnd), .timeLimit(.minutes(10))) func listNamesEveryStoreAndWorkload() throws {
        let run = try runTool(["list"])
        #expect(run.status == 0)
        for name in allStoreNames + WorkloadCatalog.all.map(\.name) {
            #expect(run.output.contains("  \(name) "), "missing \(name)")
        }
        #expect(run.output.contains("Durability"))
    }

    /// What `main` does with bad input, seen from outside: exit status 2 and one line, whatever the command.
    @Test(
        .tags(.endToEnd), .timeLimit(.minutes(10)),
        arguments: [
            ["run", "--stores", "sqlite,nosuch"], ["frobnicate"], ["run", "--out", "/dev/null/x"],
            ["report", "/nonexistent-dir"],
        ])
    func badInputExitsWithOneLine(arguments: [String]) throws {
        let run = try runTool(arguments)
        #expect(run.status == 2, "\(arguments): status \(run.status)")
        #expect(run.output.split(separator: "\n").count == 1, "\(arguments): \(run.output)")
        #expect(run.output.hasPrefix("Error: "))
    }

    @Test(.tags(.endToEnd), .timeLimit(.minutes(10))) func keysPrintsWhatACellWouldUse() throws {
        let keys = try runTool(["keys", "--workload", "get-zipfian", "--scale", "1k", "--count", "3", "--seed", "5"])
        #expect(keys.status == 0, "\(keys.output)")
        let expected = GetWorkload(distribution: .zipfian).keyTrace(scale: 1000, seed: 5).prefix(3).map(\.line)
        #expect(keys.output.split(separator: "\n").map(String.init) == expected)
        #expect(expected.allSatisfy { $0.hasPrefix("READ ") })

        let operations = try runTool(["keys", "--workload", "ycsb-e", "--scale", "2000"])
        let lines = operations.output.split(separator: "\n")
        #expect(lines.count == 2000)
        #expect(lines.allSatisfy { $0.hasPrefix("SCAN ") || $0.hasPrefix("INSERT ") })

        let summary = try runTool(["keys", "--workload", "ycsb-c", "--scale", "100k", "--summary"])
        #expect(summary.status == 0)
        #expect(summary.output.hasPrefix("ycsb-c at 100k, seed 42: 100.0k draws: hottest key "), "\(summary.output)")
    }

    @Test(.tags(.endToEnd), .timeLimit(.minutes(10))) func aSmallRunWritesReportsWithAgreeingDigests() throws {
        let directory = try TemporaryDirectory()
        let out = directory.url.appendingPathComponent("out").path
        let run = try runTool([
            // No time box: the counts below are the workloads' own, not what a loaded machine did in 500 ms (CI's
            // `get` did 294 of 300 lookups beside the counter check).
            "run", "--stores", "sqlite,grdb", "--workloads", "insert,get,page", "--scales", "300",
            "--repetitions", "2", "--time-box", "none", "--out", out, "--keep-stores",
        ])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("Digests agree"))
        let results = try RunResults.load(from: URL(fileURLWithPath: out).appendingPathComponent("results.json"))
        #expect(results.cells.count == 12)
        #expect(results.cells.allSatisfy { $0.status == .ok })
        #expect(results.finishedAt != nil)
        #expect(results.digestChecks.count == 3 && results.digestChecks.allSatisfy(\.agreed))
        let get = try #require(results.cells.first { $0.workload == "get" && $0.store == "sqlite" })
        #expect(get.metrics?.phase.operations == 300)
        #expect(get.metrics?.phase.latency?.count == 300)
        let processPeak = try #require(get.process?.peakRSSBytes)
        let timedPeak = try #require(get.metrics?.resources.timedPeakRSSBytes)
        #expect(timedPeak > 1 << 20 && timedPeak <= processPeak, "the timed phase's peak is part of the process's")
        #expect(get.peakRSSBytes == timedPeak)
        // The timed phase's peak is its own (reset after the open), and its growth is over the process before open.
        let baseline = try #require(get.metrics?.resources.baselineRSSBytes)
        let openPeak = try #require(get.metrics?.resources.openPeakRSSBytes)
        #expect(baseline > 1 << 20 && baseline <= openPeak, "\(baseline) \(openPeak)")
        #expect(get.metrics?.resources.rssGrowthBytes == max(0, timedPeak - baseline))
        // Page faults of the timed phase are counted: an insert touches new heap and file pages.
        let insert = try #require(results.cells.first { $0.workload == "insert" && $0.store == "sqlite" })
        #expect((insert.metrics?.resources.phaseMinorFaults ?? 0) > 0, "\(String(describing: insert.metrics))")
        #expect(get.metrics?.resources.phaseMajorFaults != nil && get.metrics?.resources.storageReadBytes != nil)
        #expect(results.environment.engines["sqlite"]?.hasPrefix("SQLite 3.") == true)
        // GRDB's version is the one SwiftPM resolved (Package.resolved), not one written by hand.
        let resolved = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Package.resolved")
        let pins = try #require(
            (try JSONSerialization.jsonObject(with: Data(contentsOf: resolved)) as? [String: Any])?["pins"]
                as? [[String: Any]])
        let grdb = try #require(
            (pins.first { $0["identity"] as? String == "grdb.swift" }?["state"] as? [String: Any])?["version"]
                as? String)
        #expect(results.environment.engines["grdb"]?.hasPrefix("GRDB \(grdb) on SQLite 3.") == true)
        // --keep-stores leaves the last repetition's files for outside tools.
        #expect(FileManager.default.fileExists(atPath: "\(out)/stores/grdb/insert-300/store.sqlite"))
        #expect(!FileManager.default.fileExists(atPath: "\(out)/work"))

        // `report` re-renders from results.json alone.
        try FileManager.default.removeItem(atPath: "\(out)/report.md")
        let report = try runTool(["report", out, "--format", "md"])
        #expect(report.status == 0)
        let markdown = try String(contentsOfFile: "\(out)/report.md", encoding: .utf8)
        #expect(markdown.contains("## insert") && markdown.contains("★"))

        // `export` writes what github-action-benchmark reads: one entry per finished (store, workload, scale).
        let exported = directory.url.appendingPathComponent("benchmark.json").path
        let export = try runTool(["export", "--format", "github-action-benchmark", "--run", out, exported])
        #expect(export.status == 0, "\(export.output)")
        let entries = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: exported)))
                as? [[String: Any]])
        #expect(entries.count == 6)
        let sqliteGet = try #require(entries.first { $0["name"] as? String == "sqlite get 300" })
        #expect(sqliteGet["unit"] as? String == "µs/op")
        let medianTime = try #require(
            median(
                results.cells.filter { $0.store == "sqlite" && $0.workload == "get" }.compactMap(\.metrics).map {
                    $0.phase.timedSeconds / Double($0.phase.operations) * 1e6
                }))
        #expect(abs((sqliteGet["value"] as? Double ?? 0) / medianTime - 1) < 0.01)
        #expect((sqliteGet["range"] as? String)?.hasPrefix("± ") == true)
        #expect((sqliteGet["extra"] as? String)?.hasPrefix("2 of 2 repetitions") == true)
        // Bad input: an unknown format, a directory without a run.
        let unknown = try runTool(["export", "--format", "csv", "--run", out, exported])
        #expect(unknown.status == 2 && unknown.output.contains("csv"), "\(unknown.output)")
        let missing = try runTool([
            "export", "--format", "github-action-benchmark", "--run", directory.url.path, exported,
        ])
        #expect(missing.status == 2 && missing.output.contains("no results.json"), "\(missing.output)")
    }

    /// A time box stops get and get-batch after their minimum; the group's count is the fewest steps a first
    /// repetition did, and every cell of the group, in every repetition, did exactly that count: the same
    /// operations, the same answers, compared whole.
    ///
    /// count-range's rounds are set the same way.
    @Test(.tags(.endToEnd), .timeLimit(.minutes(10))) func timeBoxedCellsOfAGroupDoTheSameSteps() throws {
        let directory = try TemporaryDirectory()
        let out = directory.url.appendingPathComponent("out").path
        let run = try runTool([
            "run", "--stores", "sqlite,json,memory", "--workloads", "get,get-batch,count-range", "--scales", "1k",
            "--repetitions", "2", "--out", out, "--time-box", "1ms", "--strict",
        ])
        #expect(run.status == 0, "\(run.output)")
        let results = try RunResults.load(from: URL(fileURLWithPath: out).appendingPathComponent("results.json"))
        #expect(results.configuration.timeBoxSeconds == 0.001)
        for workload in ["get", "get-batch", "count-range"] {
            let cells = results.cells.filter { $0.workload == workload }
            #expect(cells.count == 6, "\(workload)")
            let steps = Set(cells.map { $0.metrics?.verification.steps })
            let operations = Set(cells.map { $0.metrics?.phase.operations })
            #expect(steps.count == 1 && operations.count == 1, "\(workload): \(steps) \(operations)")
            // get-batch's 1,000 keys are 10 batches: the minimum, all done.
            let least = workload == "get-batch" ? 10 : workload == "count-range" ? 8 : TimeBox.minimumSteps
            #expect(cells.allSatisfy { $0.metrics!.verification.steps! >= least }, "\(workload)")
        }
        // count-range asks whole rounds of its 8 ranges.
        let rounds = try #require(results.cells.first { $0.workload == "count-range" }?.metrics?.verification.steps)
        #expect(rounds % CountRangeWorkload.rangeCount == 0)
        #expect(results.digestChecks.map(\.workload) == ["get", "get-batch", "count-range"])
        #expect(results.digestChecks.allSatisfy { $0.agreed }, "\(results.digestChecks)")
        // get-batch asks 100 keys a step.
        let batch = try #require(results.cells.first { $0.workload == "get-batch" }?.metrics)
        #expect(batch.phase.operations == min(1_000, batch.verification.steps! * GetBatchWorkload.batchSize))
        let markdown = try String(contentsOfFile: "\(out)/report.md", encoding: .utf8)
        #expect(markdown.contains("get at 1k "), "\(markdown)")
    }

    /// A workload judged against a budget does at least 1,000 steps under a time box; a store that cannot within
    /// `--floor-time` (json's durable insert rewrites its file) stops on its own time without lowering the others'
    /// count, does its own count in its later repetitions, and is checked against the others on the first steps
    /// every cell did.
    @Test(.tags(.endToEnd), .timeLimit(.minutes(10))) func aSlowStoreStopsShortOfTheBudgetFloorAlone() throws {
        let directory = try TemporaryDirectory()
        let out = directory.url.appendingPathComponent("out").path
        let run = try runTool([
            "run", "--stores", "json,memory", "--workloads", "insert-each", "--scales", "10k", "--repetitions", "2",
            "--out", out, "--time-box", "1ms", "--floor-time", "2s", "--strict",
        ])
        #expect(run.status == 0, "\(run.output)")
        let results = try RunResults.load(from: URL(fileURLWithPath: out).appendingPathComponent("results.json"))
        let json = results.cells.filter { $0.store == "json" }.compactMap(\.metrics)
        let memory = results.cells.filter { $0.store == "memory" }.compactMap(\.metrics)
        #expect(json.count == 2 && memory.count == 2)
        #expect(
            memory.allSatisfy { $0.verification.steps == TimeBox.budgetSamples && $0.verification.stoppedShort == nil })
        let own = try #require(json.first?.verification.steps)
        #expect(json[0].verification.stoppedShort == true && own >= TimeBox.minimumSteps && own < TimeBox.budgetSamples)
        #expect(json.allSatisfy { $0.verification.steps == own })
        #expect(Set((json + memory).map { $0.verification.prefix?.steps }) == [TimeBox.minimumSteps])
        let check = try #require(results.digestChecks.first)
        #expect(check.agreed && check.ownSteps?.keys.sorted() == ["json"] && check.prefixes?.count == 2, "\(check)")
        let markdown = try String(contentsOfFile: "\(out)/report.md", encoding: .utf8)
        #expect(markdown.contains("| `memory` | ≥ 10k measured (p99 of 1,000:"), "\(markdown)")
        #expect(markdown.contains("\(own < 100 ? "max" : "p99") of \(own): "), "\(markdown)")
        // Its cell says it stopped on its own time; the others' do not.
        let short = ", on its own time: short of the budget floor (1,000 steps, or all it has)"
        #expect(markdown.components(separatedBy: short).count == 2, "\(markdown)")
    }

    @Test(.tags(.endToEnd), .timeLimit(.minutes(10))) func aCellOverItsBudgetIsDNFAndTheRunGoesOn() throws {
        let directory = try TemporaryDirectory()
        let out = directory.url.appendingPathComponent("out").path
        let arguments = [
            "run", "--stores", "sqlite", "--workloads", "insert,scan", "--scales", "200k", "--repetitions", "1",
            "--out", out, "--time-budget", "300ms", "--fixture-time-budget", "300ms", "--fixtures", "none",
        ]
        let run = try runTool(arguments)
        #expect(run.status == 0, "\(run.output)")
        let results = try RunResults.load(from: URL(fileURLWithPath: out).appendingPathComponent("results.json"))
        #expect(results.cells.count == 2)
        #expect(results.cells.allSatisfy { $0.status == .dnf })
        #expect(results.cells[0].reason?.contains("over the time budget of 0.3 s") == true)
        #expect(
            results.cells[1].reason?.contains("fixture items: over the fixture time budget of 0.3 s") == true,
            "\(results.cells[1].reason ?? "")")
        let strict = try runTool(arguments + ["--strict", "--replace"])
        #expect(strict.status == 1)
        // A fixture's load has its own budget (1 h by default): one longer than the cell's budget is no DNF.
        let loaded = directory.url.appendingPathComponent("loaded").path
        #expect(
            try runTool([
                "run", "--stores", "sqlite", "--workloads", "scan", "--scales", "200k", "--repetitions", "1", "--out",
                loaded, "--time-budget", "300ms", "--fixtures", "none",
            ]).status == 0)
        let scan = try #require(
            try RunResults.load(from: URL(fileURLWithPath: loaded).appendingPathComponent("results.json")).cells.first)
        #expect(try #require(scan.fixtureSeconds) > 0.3)
        #expect(scan.reason?.contains("fixture") != true, "\(scan.reason ?? "")")
    }

    @Test(.tags(.endToEnd), .timeLimit(.minutes(10))) func aCellOverItsMemoryBudgetIsDNF() throws {
        let directory = try TemporaryDirectory()
        let out = directory.url.appendingPathComponent("out").path
        // Any cell of this tool is resident beyond 16 MiB (the least budget it takes), so the first check stops it.
        let run = try runTool([
            "run", "--stores", "sqlite", "--workloads", "insert", "--scales", "100k,200k", "--repetitions", "2",
            "--out", out, "--memory-budget", "16MiB",
        ])
        #expect(run.status == 0, "\(run.output)")
        let results = try RunResults.load(from: URL(fileURLWithPath: out).appendingPathComponent("results.json"))
        #expect(results.cells.first?.status == .dnf)
        #expect(results.cells.first?.reason?.contains("over the memory budget of 16.0 MiB (resident") == true)
        #expect(results.cells.first?.process?.peakRSSBytes ?? 0 > 0)
        // The same work again, or more of it, is not started: the second repetition and the larger scale.
        #expect(results.cells.count == 4)
        for cell in results.cells.dropFirst() {
            #expect(cell.status == .dnf)
            #expect(cell.reason?.hasPrefix("not run: repetition 1 at 100k was stopped over the memory budget") == true)
            #expect(cell.process == nil)
        }
    }

    @Test(.tags(.endToEnd), .timeLimit(.minutes(10))) func aMalformedResultsFileIsReportedNotCrashedOn() throws {
        let directory = try TemporaryDirectory()
        try Data("{\"schemaVersion\": 1, \"cells\": 3}".utf8).write(
            to: directory.url.appendingPathComponent("results.json"))
        let run = try runTool(["report", directory.url.path])
        #expect(run.status == 2)
        #expect(run.output.contains("is malformed"))
        #expect(!run.output.contains("Fatal error"))
    }
}
