import Foundation
import PersistenceBench

/// `report.md`: per workload a table of stores × scales, with the environment and the command on top.
package enum MarkdownReport {
    package static func render(_ results: RunResults) -> String {
        let scales = orderedUnique(results.cells.map(\.scale)).sorted()
        let stores = results.stores
        var out = heading(results) + countsSection(results) + environmentSection(results) + machinesSection(results)
        out += readingGuide(results)
        out += strategySummary(results, stores: stores, scales: scales)
        out += budgetSummary(results, stores: stores, scales: scales)
        for workload in orderedUnique(results.cells.map(\.workload)) {
            out += workloadSection(workload, results, stores: stores, scales: scales)
        }
        out += limitsSection(results, stores: stores, scales: scales)
        out += engineFloorsSection(results, stores: stores, scales: scales)
        out += growthSection(results)
        out += peakMemorySection(results)
        out += bytesOnDiskSections(results, stores: stores, scales: scales)
        return out.joined(separator: "\n")
    }

    /// The title, the command that produced the run, and a warning first where stores gave different answers.
    private static func heading(_ results: RunResults) -> [String] {
        let status = results.finishedAt == nil ? "**incomplete** (interrupted or still running)" : "complete"
        var out = [
            "# PersistenceBench report", "", "Run started \(iso(results.startedAt)), \(status). Produced by:", "",
            "```", results.environment.command, "```", "",
        ]
        let mismatches = results.digestChecks.filter { !$0.agreed }
        if !mismatches.isEmpty {
            out += [
                "## ⚠️ DIGEST MISMATCH: stores disagree", "",
                "These stores gave different answers to the same questions; their timings are not comparable.", "",
            ]
            out += mismatches.map { "- **\($0.workload) at \($0.scale)**: " + $0.digestsDescription } + [""]
        }
        return out
    }

    /// The machine, the engines and the run's settings.
    private static func environmentSection(_ results: RunResults) -> [String] {
        let environment = results.environment
        let configuration = results.configuration
        var out = [
            "## Environment", "", "| | |", "|---|---|",
            "| CPU | \(environment.cpuModel), \(environment.cores) cores |",
            "| Memory | \(Quantity.formatBytes(environment.memoryBytes)) |",
            "| Kernel | \(environment.kernel) |",
            "| Host | \(environment.hostname) |",
            "| Compiler | \(environment.swift) |",
        ]
        if let readAhead = environment.readAheadKilobytes {
            let devices = readAhead.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value) KiB" }
            out.append("| Read-ahead | \(devices.joined(separator: ", ")) |")
        }
        for (store, engine) in environment.engines.sorted(by: { $0.key < $1.key }) {
            let configuration = environment.configurations?[store].map { "; \($0)" } ?? ""
            out.append("| `\(store)` | \(engine)\(configuration) |")
        }
        return out + [
            "| Git commit | \(environment.gitCommit) |",
            "| Seed | \(configuration.seed) |",
            "| Repetitions | \(configuration.repetitionsDescription), each in its own process |",
            "| Budgets | \(Quantity.formatBudget(configuration.timeBudgetSeconds)) and "
                + "\(Quantity.formatBytes(configuration.memoryBudgetBytes)) per cell"
                + (configuration.fixtureTimeBudgetSeconds.map {
                    "; \(Quantity.formatBudget($0)) per fixture load (untimed setup)"
                } ?? "")
                + " |",
            "| Write batch | \(configuration.batchSize) records per transaction |",
            "",
        ]
    }

    /// How to read a cell; the harness's own share of the timed seconds; how many groups' digests agree.
    private static func readingGuide(_ results: RunResults) -> [String] {
        var out = [
            "Each cell shows the median throughput over the repetitions that finished, its min–max spread, the "
                + "ratio to the best store at that scale (best throughput ÷ this one: 1.00× is the best, 2.00× takes "
                + "twice as long), and the median peak RSS of the cell's process during its timed phase (not the open before it nor "
                + "the digest read-back after it), with in brackets what that peak added to the process as it was before "
                + "the store opened. A note after a cell says where that store does other work than the rest. ★ marks "
                + "the best. DNF: did not "
                + "finish, with the reason. n/a: the store cannot answer this workload.",
            "",
        ]
        out += harnessShare(results)
        let mismatches = results.digestChecks.filter { !$0.agreed }.count
        let agreed = results.digestChecks.count - mismatches
        let boxed = results.digestChecks.compactMap { check in
            check.steps.map { "\(check.workload) at \(check.scale) \(formatCount(Double($0))) steps" }
        }
        let boxedNote =
            boxed.isEmpty
            ? ""
            : " Where the time box set a group's count of steps (a question, a batch, a durable insert or a round "
                + "each), every cell of the group did that count, its speed is measured on it and all its answers "
                + "are compared: " + boxed.joined(separator: ", ") + "."
        return out + [
            "Digests: \(agreed) of \(results.digestChecks.count) (workload, scale) groups agree across stores"
                + (mismatches == 0 ? "." : "; **\(mismatches) disagree** (see above).") + boxedNote,
            "",
        ]
    }

    /// How the loops are timed, and the harness's largest share of a cell's timed seconds in this run.
    private static func harnessShare(_ results: RunResults) -> [String] {
        let harness = results.cells.compactMap { cell in cell.metrics?.harnessShare.map { (cell, $0) } }
        // Per cell, the median over its repetitions, as every other figure of the report.
        let byCell = Dictionary(grouping: harness) { $0.0.series }
            .compactMapValues { shares in median(shares.map(\.1)) }
        guard let largest = harness.max(by: { $0.1 < $1.1 }), let typical = byCell.max(by: { $0.value < $1.value })
        else { return [] }
        func percent(_ share: Double) -> String { String(format: "%.1f%%", share * 100) }
        return [
            "Throughput is timed in blocks: a lookup or a page faster than 2 µs is timed 32 at a time under one "
                + "clock, the first of each block alone as the latency sample; a slower one is timed alone, "
                + "every one a sample. The harness's own cost (the same loop against a store that does nothing, "
                + "its steps timed as the cell timed most of its own, alone or in blocks; the median of 3 runs) "
                + "is measured in every loop cell: at most \(percent(typical.value)) of a cell's timed seconds, "
                + "median over its repetitions, in this run (\(typical.key.store) \(typical.key.workload) at "
                + "\(typical.key.scale)); \(percent(largest.1)) in a single "
                + "repetition (\(largest.0.store) \(largest.0.workload) at \(largest.0.scale), repetition "
                + "\(largest.0.repetition)).",
            "",
        ]
    }

    /// One workload's section: what it times, its key spread, its charts, its stores × scales tables, and the
    /// tables it declares (`Workload.report`).
    private static func workloadSection(
        _ name: String, _ results: RunResults, stores: [String], scales: [Scale]
    ) -> [String] {
        let workload = WorkloadCatalog.workload(named: name)
        let declared = workload?.report ?? WorkloadReport()
        let cells = results.cells.filter { $0.workload == name }
        var out = ["## \(name)", ""]
        if let summary = workload?.summary { out += [summary + ".", ""] }
        if let keyed = workload as? any KeyedWorkload, keyed.skewedKeys {
            out += keySpread(keyed, cells, seed: results.configuration.seed, scales: scales)
        }
        out += charts(name, cells, stores: stores, scales: scales)
        let tables = storeTables(cells, stores: stores, scales: scales)
        out += storeByScaleHeader(scales) + tables.throughput + [""]
        out += notes(cells, stores: stores, scales: scales)
        if !tables.latency.isEmpty {
            out += [
                "Latency per operation, µs, p50 / p99 / p99.9 (median over repetitions), and n, the fewest samples a "
                    + "repetition's percentiles rest on (a question under 2 µs is sampled 1 in 32): from fewer than "
                    + "100 samples a p99 is their slowest, from fewer than 1,000 a p99.9 is:",
                "",
            ]
            out += storeByScaleHeader(scales) + tables.latency + [""]
        }
        out += operationLatencyTable(cells, kinds: declared.operationKinds, stores: stores, scales: scales)
        out += firstRoundTable(cells, stores: stores, scales: scales)
        out += budgetTable(name, cells, stores: stores, scales: scales)
        for table in declared.tables {
            switch table {
            case .readerBesideImport(let alone):
                out += readWhileImportTable(
                    cells, imports: results.cells.filter { $0.workload == alone.name }, stores: stores, scales: scales)
            case .observation:
                out += observeTable(cells, stores: stores, scales: scales)
            }
        }
        if !tables.memory.isEmpty {
            out += [
                "Resident memory at the end of the timed phase, anonymous (heap) + file-backed (mapped files, "
                    + "including the executable's), median:",
                "",
            ]
            out += storeByScaleHeader(scales) + tables.memory + [""]
        }
        if !tables.faults.isEmpty {
            out += [
                "Page faults per operation in the timed phase, minor / major (median): a mapped file's page or a new "
                    + "heap page found in memory, or waited for from storage. Instruction counts include neither.",
                "",
            ]
            out += storeByScaleHeader(scales) + tables.faults + [""]
        }
        return out
    }

    /// Skewed keys: how they spread at each scale (`persistbench keys --summary`).
    private static func keySpread(
        _ workload: any KeyedWorkload, _ cells: [CellResult], seed: UInt64, scales: [Scale]
    ) -> [String] {
        scales.filter { scale in cells.contains { $0.scale == scale } }.map { scale in
            let keys = workload.keyTrace(scale: scale.records, seed: seed)
            return "- Keys at \(scale): "
                + KeySummary(keys: keys.compactMap(\.drawn), keyCount: scale.records).description + "."
        } + [""]
    }

    /// The workload's chart of throughput against scale, and of throughput over time per scale for cells that ran
    /// long enough to show it.
    private static func charts(_ workload: String, _ cells: [CellResult], stores: [String], scales: [Scale])
        -> [String]
    {
        var out: [String] = []
        if cells.contains(where: { $0.status == .ok }) {
            out += [
                "![\(workload): throughput against scale](\(Charts.directoryName)/\(Charts.throughputFileName(workload)))",
                "",
            ]
        }
        for scale in scales where !Charts.timelines(of: cells.filter { $0.scale == scale }, stores: stores).isEmpty {
            out += [
                "![\(workload) at \(scale): throughput over time]"
                    + "(\(Charts.directoryName)/\(Charts.timelineFileName(workload, scale)))",
                "",
            ]
        }
        return out
    }

    /// A workload's rows of stores × scales: throughput (every store), latency and resident memory (the stores
    /// that have them).
    private static func storeTables(_ cells: [CellResult], stores: [String], scales: [Scale])
        -> (throughput: [String], latency: [String], memory: [String], faults: [String])
    {
        // The best store: never the harness floor, nor a store that answered from a maintained count.
        let bestByScale = Dictionary(
            uniqueKeysWithValues: scales.map { ($0, fastest(in: cells, stores: stores, at: $0)?.throughput) })
        var tables: (throughput: [String], latency: [String], memory: [String], faults: [String]) = ([], [], [], [])
        for store in stores {
            let summaries = scales.map { scale in
                (scale, CellSummary(cells, store: store, scale: scale))
            }
            let throughput = summaries.map { scale, summary in
                throughputCell(
                    summary, best: bestByScale[scale] ?? nil, canBeBest: store != StoreKind.harnessFloorName)
            }
            tables.throughput.append(row(store, throughput))
            let latency = summaries.map { _, summary -> String? in
                guard let p50 = summary.medianLatency(\.p50), let p99 = summary.medianLatency(\.p99),
                    let p999 = summary.medianLatency(\.p999),
                    let samples = summary.finished.compactMap(\.latency?.count).min()
                else { return nil }
                return "\(formatSignificant(p50)) / \(formatSignificant(p99)) / \(formatSignificant(p999)) "
                    + "(n \(formatWhole(samples)))"
            }
            if latency.contains(where: { $0 != nil }) { tables.latency.append(row(store, latency.map { $0 ?? "–" })) }
            let memory = summaries.map { _, summary -> String? in
                guard let anon = summary.medianResident(\.rssAnonBytes),
                    let file = summary.medianResident(\.rssFileBytes)
                else { return nil }
                return "\(Quantity.formatBytes(Int64(anon))) + \(Quantity.formatBytes(Int64(file)))"
            }
            if memory.contains(where: { $0 != nil }) { tables.memory.append(row(store, memory.map { $0 ?? "–" })) }
            let faults = summaries.map { _, summary -> String? in
                guard let minor = summary.medianPerOperation(\.phaseMinorFaults),
                    let major = summary.medianPerOperation(\.phaseMajorFaults)
                else { return nil }
                return "\(formatSignificant(minor)) / \(formatSignificant(major))"
            }
            if faults.contains(where: { $0 != nil }) { tables.faults.append(row(store, faults.map { $0 ?? "–" })) }
        }
        return tables
    }

    /// One row of a stores × scales table.
    private static func row(_ store: String, _ entries: [String]) -> String {
        "| `\(store)` |" + entries.map { " \($0) |" }.joined()
    }

    /// Per store and scale, the resident memory a store needs per record, as a chart.
    private static func peakMemorySection(_ results: RunResults) -> [String] {
        guard results.cells.contains(where: { ($0.metrics?.rssGrowthBytes ?? 0) > 0 }) else { return [] }
        return [
            "## Peak memory per record", "",
            "Per store and scale, the largest median growth of resident memory over the workloads (the timed "
                + "phase's peak less the process's resident memory before the store opened), divided by the "
                + "records: what the store and its work need per record, without the tool's own fixed size.",
            "",
            "![Peak memory per record against scale](\(Charts.directoryName)/\(Charts.memoryFileName))",
            "",
        ]
    }

    /// For each workload that declares it (`WorkloadReport.bytesOnDisk`): the bytes its cells left on disk.
    private static func bytesOnDiskSections(_ results: RunResults, stores: [String], scales: [Scale]) -> [String] {
        orderedUnique(results.cells.map(\.workload)).filter {
            WorkloadCatalog.workload(named: $0)?.report.bytesOnDisk ?? false
        }.flatMap { workload -> [String] in
            let table = storeByScaleTable(
                results.cells.filter { $0.workload == workload }, stores: stores, scales: scales
            ) { _, scale, summary -> String? in
                guard let bytes = summary.medianBytesOnDisk else { return nil }
                let perRecord = formatSignificant(bytes / Double(scale.records))
                return "\(Quantity.formatBytes(Int64(bytes))) (\(perRecord) B/record)"
            }
            return ["## Bytes on disk after `\(workload)`", ""] + table + [""]
        }
    }

    /// Under a workload's table: each store's time per operation beside the harness floor's (`memory`), and the
    /// share of a changing workload's time that its checkpoint took (`settleSeconds`), where there is one.
    private static func notes(_ cells: [CellResult], stores: [String], scales: [Scale]) -> [String] {
        var out: [String] = []
        let floor = StoreKind.harnessFloorName
        let floorTimes = Dictionary(
            uniqueKeysWithValues: scales.compactMap { scale in
                CellSummary(cells, store: floor, scale: scale).medianTimePerOperation
                    .map { (scale, $0) }
            })
        if !floorTimes.isEmpty && stores.contains(where: { $0 != floor }) {
            out.append(
                "Time per operation, and in brackets the share of it that is the harness floor (`\(floor)`: the same "
                    + "generation, timing and digest with the data in Swift arrays). \"floor slower\": `\(floor)` did "
                    + "more work than the store here (for example, sorting its page orders at the end of a load).")
            out.append("")
            out.append(
                contentsOf: storeByScaleTable(cells, stores: stores, scales: scales) { store, scale, summary in
                    guard let time = summary.medianTimePerOperation else { return nil }
                    guard let floorTime = floorTimes[scale], store != floor, time > 0 else {
                        return Quantity.formatTime(time)
                    }
                    return Quantity.formatTime(time)
                        + (floorTime > time
                            ? " (floor slower)" : " (\(String(format: "%.0f", 100 * floorTime / time)) %)")
                })
            out.append("")
        }
        let settling = stores.filter { store in
            cells.contains { $0.store == store && ($0.metrics?.settleSeconds ?? 0) > 0 }
        }
        if !settling.isEmpty {
            out.append(
                "Settling at the end of the timed phase (`Store.settle`: the SQLite stores' "
                    + "`wal_checkpoint(TRUNCATE)`, what their close would otherwise do untimed; elsewhere an empty call), "
                    + "median seconds and share of the timed seconds:")
            out.append("")
            out.append(
                contentsOf: storeByScaleTable(cells, stores: settling, scales: scales) { _, _, summary in
                    guard let settle = median(summary.finished.compactMap(\.settleSeconds)),
                        let timed = median(summary.finished.map(\.timedSeconds)), timed > 0
                    else { return nil }
                    return "\(Quantity.formatTime(settle)) (\(String(format: "%.0f", 100 * settle / timed)) %)"
                })
            out.append("")
        }
        return out
    }

    /// A table with one row per store and one column per scale: `entry` of the store's cells at that scale, or "–"
    /// where it gives none.
    private static func storeByScaleTable(
        _ cells: [CellResult], stores: [String], scales: [Scale],
        entry: (_ store: String, _ scale: Scale, CellSummary) -> String?
    ) -> [String] {
        storeByScaleHeader(scales)
            + stores.map { store in
                "| `\(store)` |"
                    + scales.map { scale in
                        " \(entry(store, scale, CellSummary(cells, store: store, scale: scale)) ?? "–") |"
                    }.joined()
            }
    }

    /// The two header lines of a table with one row per store and one column per scale.
    private static func storeByScaleHeader(_ scales: [Scale]) -> [String] {
        [
            "| store | " + scales.map { "\($0)" }.joined(separator: " | ") + " |",
            "|---|" + scales.map { _ in "---|" }.joined(),
        ]
    }

    /// For workloads that time kinds of operation apart (YCSB, `open`), each kind's latency (YCSB's names for
    /// YCSB's kinds), per store and scale, in the order the workload declares them (`WorkloadReport`; a kind in the
    /// results it does not declare after them); nothing for the others.
    private static func operationLatencyTable(
        _ cells: [CellResult], kinds declared: [OperationKind], stores: [String], scales: [Scale]
    ) -> [String] {
        let present = Set(cells.compactMap { $0.metrics?.latencyByOperation?.keys }.joined().map(OperationKind.init))
        let kinds =
            declared.filter(present.contains) + present.subtracting(declared).sorted { $0.rawValue < $1.rawValue }
        guard !kinds.isEmpty else { return [] }
        let rows = CellSummary.finished(cells, stores: stores, scales: scales).map { store, scale, summary in
            let columns = kinds.map { kind -> String in
                let values = [\LatencySummary.p50, \.p95, \.p99, \.p999].compactMap {
                    summary.medianLatency(of: kind, $0)
                }
                return values.count == 4 ? values.map(formatSignificant).joined(separator: " / ") : "–"
            }
            return "| `\(store)` | \(scale) | " + columns.joined(separator: " | ") + " |"
        }
        return table(
            "Latency by kind of operation, µs, p50 / p95 / p99 / p99.9 (median over repetitions; YCSB's kinds as YCSB "
                + "names them):",
            header: ["store", "scale"] + kinds.map { "[\($0)]" }, rows: rows)
    }

    /// For a workload that repeats a round of questions (`count-where`, `count-range`): the first round's time per
    /// question beside the later rounds', per store and scale, where a cell asked more than one round; nothing
    /// otherwise.
    private static func firstRoundTable(_ cells: [CellResult], stores: [String], scales: [Scale]) -> [String] {
        let rows = CellSummary.finished(cells, stores: stores, scales: scales).compactMap {
            store, scale, summary -> String? in
            let first = median(
                summary.finished.compactMap { metrics in
                    metrics.firstRound.map { $0.seconds / Double(max(1, $0.operations)) }
                })
            guard let first, let later = median(summary.finished.compactMap(\.laterRoundsSecondsPerOperation)),
                let rounds = median(
                    summary.finished.compactMap { metrics in
                        metrics.firstRound.map { Double(metrics.operations) / Double(max(1, $0.operations)) }
                    })
            else { return nil }
            return "| `\(store)` | \(scale) | \(formatSignificant(rounds)) | \(formatSignificant(first * 1e6)) | "
                + "\(formatSignificant(later * 1e6)) | \(formatSignificant(first / later))× |"
        }
        guard !rows.isEmpty else { return [] }
        return table(
            "The first round against the later ones, µs per question (median over repetitions): every store of a "
                + "(scale, repetition) asks the same rounds; the first may find the store's pages cold.",
            header: ["store", "scale", "rounds", "first round", "later rounds", "first / later"], rows: rows)
    }

    /// For `read-while-import`: the reader's latency alone and during the import, its reads over 16 ms, and the
    /// writer's rate with the reader beside it and alone (the run's `import` cells, where it has them); nothing for
    /// other workloads.
    private static func readWhileImportTable(
        _ cells: [CellResult], imports: [CellResult], stores: [String], scales: [Scale]
    ) -> [String] {
        guard cells.contains(where: { $0.metrics?.readWhileImport != nil }) else { return [] }
        let rows = CellSummary.finished(cells, stores: stores, scales: scales).compactMap {
            store, scale, summary -> String? in
            let live = summary.finished.compactMap(\.readWhileImport)
            guard !live.isEmpty else { return nil }
            func latencies(_ phase: KeyPath<ReadWhileImportMetrics, LatencySummary?>) -> String {
                let values = [\LatencySummary.p50, \.p99, \.p999, \.max].compactMap { percentile in
                    median(live.compactMap { $0[keyPath: phase]?[keyPath: percentile] })
                }
                return values.count == 4 ? values.map(formatSignificant).joined(separator: " / ") : "–"
            }
            func count(_ figure: KeyPath<ReadWhileImportMetrics, Int>) -> String {
                medianCount(live.map { $0[keyPath: figure] })
            }
            let during = summary.medianThroughput
            let alone = CellSummary(imports, store: store, scale: scale).medianThroughput
            let rates =
                (during.map(formatCount) ?? "–") + " · " + (alone.map(formatCount) ?? "–")
                + (during.flatMap { during in alone.map { String(format: " (%.2f×)", $0 / during) } } ?? "")
            return "| `\(store)` | \(scale) | \(latencies(\.readsAlone)) | \(latencies(\.readsDuringImport)) | "
                + "\(count(\.slowReadsDuringImport)) (\(count(\.readsInImport))) · \(count(\.slowReadsAlone)) | "
                + "\(rates) |"
        }
        return table(
            "The reader, open-loop, each read timed from its intended start (so a stall shows in every read it "
                + "delays): µs p50 / p99 / p99.9 / max alone and during the import; reads over 16 ms (a missed frame "
                + "at 60 Hz) of the reads meant to start during the import, and alone; the import's items/s with the "
                + "reader beside it and alone (`import`, on the same fixture), and the slowdown. Medians over "
                + "repetitions:",
            header: [
                "store", "scale", "reads alone", "reads during import", "> 16 ms during (of) · alone",
                "import items/s with reader · alone (slowdown)",
            ], rows: rows)
    }

    /// For `observe` and `observe-burst`: how fresh results reached the observer and what observing cost; nothing
    /// for other workloads.
    private static func observeTable(_ cells: [CellResult], stores: [String], scales: [Scale]) -> [String] {
        guard cells.contains(where: { $0.metrics?.observe != nil }) else { return [] }
        let rows = CellSummary.finished(cells, stores: stores, scales: scales).compactMap {
            store, scale, summary -> String? in
            let observed = summary.finished.compactMap(\.observe)
            guard !observed.isEmpty else { return nil }
            let fresh = [\LatencySummary.p50, \.p99, \.max].compactMap { summary.medianLatency(of: .fresh, $0) }
            func count(_ figure: (ObserveMetrics) -> Int) -> String { medianCount(observed.map(figure)) }
            let cpu = median(observed.map { $0.observerCPUSeconds / Double(max($0.commits, 1)) }) ?? 0
            let commit = [\LatencySummary.p50, \.p99].compactMap { percentile in
                median(observed.compactMap { $0.commitLatency?[keyPath: percentile] })
            }
            return "| `\(store)` | \(scale) | "
                + (commit.count == 2 ? commit.map(formatSignificant).joined(separator: " / ") : "–") + " | "
                + (fresh.count == 3 ? fresh.map(formatSignificant).joined(separator: " / ") : "–")
                + " | \(count(\.commits)) (\(count(\.commitsChangingResult))) | "
                + "\(count(\.notifications)) · \(count(\.requeries)) · \(count { $0.notifications - $0.requeries }) | "
                + "\(Quantity.formatTime(cpu)) |"
        }
        return table(
            "Observation: each commit's own time (µs p50 / p99: what the store's mechanism does on the writer's "
                + "thread before the commit returns is in it); the time from a commit's return to the observer "
                + "holding its result (`FRESH`, µs p50 / p99 / max; paced: after each commit that changed the "
                + "result; burst: after the last commit); the commits the store told the observer of and the "
                + "queries it ran (burst: notices answered by one query are coalesced); CPU of every thread but "
                + "the writer's. Medians over repetitions:",
            header: [
                "store", "scale", "commit µs", "fresh µs", "commits (changing the result)",
                "notices · re-queries · coalesced", "observer CPU per commit",
            ], rows: rows)
    }

    /// A table under its introduction: `header`'s columns, each aligned as `alignments` says (`---` left, `--:`
    /// right; left when not given), then `rows`, then a blank line.
    static func table(_ introduction: String, header: [String], alignments: [String]? = nil, rows: [String])
        -> [String]
    {
        let separator = "|" + (alignments ?? header.map { _ in "---" }).map { $0 + "|" }.joined()
        return [introduction, "", "| " + header.joined(separator: " | ") + " |", separator] + rows + [""]
    }

    /// The median of counts, whole, or "–" when there are none.
    static func medianCount(_ counts: [Int]) -> String {
        median(counts.map(Double.init)).map { String(format: "%.0f", $0) } ?? "–"
    }

    /// Each store measured beside the machine's limits: each workload that declares one (`WorkloadReport.machineLimit`:
    /// `insert` against `limit-write`, `scan` against `limit-scan`) as a fraction of it, in items per second.
    private static func limitsSection(_ results: RunResults, stores: [String], scales: [Scale]) -> [String] {
        boundsSection(
            "Against the machine's limits", \.machineLimit, unit: "items/s", results, stores: stores, scales: scales)
    }

    /// Each store measured beside its engine's own floor (`WorkloadReport.engineFloor`: `insert` against
    /// `engine-insert`, `get` against `engine-get`) as a fraction of it.
    private static func engineFloorsSection(_ results: RunResults, stores: [String], scales: [Scale]) -> [String] {
        boundsSection(
            "Against each engine's own floor", \.engineFloor, unit: "ops/s", results, stores: stores, scales: scales,
            note: "A floor runs the store's engine through its C API alone, on the same records, keys, index and "
                + "durability, from bytes encoded before the timer; what the store adds is its own layer "
                + "(encoding, decoding, allocation, the library's wrappers). A fraction under 0.8 at 1M is the store's "
                + "to explain.")
    }

    /// A section of the workloads that declare a bound (`bound`): each store's throughput as a fraction of the bound
    /// workload's on the same store, per scale, in `unit`.
    private static func boundsSection(
        _ title: String, _ bound: KeyPath<WorkloadReport, MachineLimit?>, unit: String, _ results: RunResults,
        stores: [String], scales: [Scale], note: String? = nil
    ) -> [String] {
        let pairs = WorkloadCatalog.all.compactMap { workload in
            workload.report[keyPath: bound].map { (workload: workload.name, limit: $0) }
        }
        func median(_ store: String, _ workload: String, _ scale: Scale) -> Double? {
            CellSummary(results.cells.filter { $0.workload == workload }, store: store, scale: scale).medianThroughput
        }
        var rows: [String] = []
        for store in stores {
            for scale in scales {
                let fractions = pairs.map { workload, limit -> String in
                    guard let measured = median(store, workload, scale),
                        let floor = median(store, limit.workload.name, scale),
                        floor > 0
                    else { return "–" }
                    return String(format: "%.2f", measured / floor)
                        + " (\(formatCount(measured)) of \(formatCount(floor)) \(unit))"
                }
                if fractions.contains(where: { $0 != "–" }) {
                    rows.append("| `\(store)` | \(scale) | " + fractions.joined(separator: " | ") + " |")
                }
            }
        }
        guard !rows.isEmpty else { return [] }
        let fractions = pairs.map {
            "`\($0.workload)` as a fraction of `\($0.limit.workload.name)` (\($0.limit.description))"
        }
        return ["## \(title)", ""] + (note.map { [$0, ""] } ?? [])
            + table(
                fractions.joined(separator: " and ") + ", medians from this run:",
                header: ["store", "scale"] + pairs.map { "\($0.workload) ÷ \($0.limit.workload.name)" }, rows: rows)
    }

    private static func throughputCell(_ summary: CellSummary, best: Double?, canBeBest: Bool) -> String {
        if summary.cells.isEmpty { return "–" }
        if let failed = summary.failure {
            if failed.status == .notApplicable { return "n/a" }
            let reason = (failed.reason ?? "no reason given").replacingOccurrences(of: "|", with: "\\|")
                .replacingOccurrences(of: "\n", with: " ")
            return "**\(failed.status == .error ? "ERROR" : "DNF")**: \(reason)"
        }
        guard let median = summary.medianThroughput else { return "–" }
        let throughputs = summary.throughputs
        let isBest = canBeBest && !summary.answeredFromMaintainedCount && (best.map { median >= $0 } ?? false)
        var text = isBest ? "**\(formatCount(median)) ops/s** ★" : "\(formatCount(median)) ops/s"
        if throughputs.count > 1, let low = throughputs.min(), let high = throughputs.max() {
            text += " (\(formatCount(low))–\(formatCount(high)))"
        }
        if let best, median > 0 { text += " · \(String(format: "%.2f", best / median))×" }
        if let rss = summary.medianPeakRSS {
            text += " · \(Quantity.formatBytes(Int64(rss)))"
            if let growth = summary.medianRSSGrowth { text += " (+\(Quantity.formatBytes(Int64(growth))))" }
        }
        if summary.answeredFromMaintainedCount { text += " · maintained count (O(1))" }
        if let note = summary.workNote { text += " · " + note.replacingOccurrences(of: "|", with: "\\|") }
        let boxed = summary.timeBoxedOperations
        if let fewest = boxed.first, let most = boxed.last {
            text +=
                " · time-boxed: \(fewest == most ? formatCount(Double(fewest)) : "\(formatCount(Double(fewest)))–\(formatCount(Double(most)))")"
                + " ops in \(boxed.count) rep(s)"
        }
        if summary.partialFailures > 0 { text += " · \(summary.partialFailures) rep(s) DNF" }
        return text
    }

    private static func iso(_ date: Date) -> String {
        ISO8601DateFormatter().string(from: date)
    }
}
