import Foundation
import PersistenceBench

/// `report.md`: per workload a table of stores × scales, with the environment and the command on top.
package enum MarkdownReport {
    // MARK: - The report

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
        if let shape = results.configuration.shape { out += [shapeLine(shape), ""] }
        let mismatches = results.digestChecks.filter { !$0.agreed }
        if !mismatches.isEmpty {
            out += [
                "## ⚠️ DIGEST MISMATCH: stores disagree", "",
                "These stores gave different answers to the same questions; their timings are not comparable.", "",
            ]
            out +=
                mismatches.flatMap { check in
                    ["- **\(check.workload) at \(check.scale)**: " + check.digestsDescription]
                        + (results.difference(in: check).map { ["  - " + $0.summary] } ?? [])
                } + [""]
        }
        return out
    }

    // MARK: - A workload's section

    /// One workload's section: what it times, its key spread, its charts, its stores × scales tables, and the
    /// tables it declares (`Workload.report`).
    private static func workloadSection(
        _ name: String, _ results: RunResults, stores: [String], scales: [Scale]
    ) -> [String] {
        let workload = WorkloadCatalog.workload(named: name, shape: results.configuration.shape)
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
        out += figuresTables(cells, in: results, stores: stores, scales: scales)
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
        // The best store: never the harness floor, nor a store kept out of the ranking (`CellSummary.unranked`).
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
                    let samples = summary.finished.compactMap(\.phase.latency?.count).min()
                else { return nil }
                return "\(formatSignificant(p50)) / \(formatSignificant(p99)) / \(formatSignificant(p999)) "
                    + "(n \(formatWhole(samples)))"
            }
            if latency.contains(where: { $0 != nil }) { tables.latency.append(row(store, latency.map { $0 ?? "–" })) }
            let memory = summaries.map { _, summary -> String? in
                guard let anon = summary.medianResident(\.resources.rssAnonBytes),
                    let file = summary.medianResident(\.resources.rssFileBytes)
                else { return nil }
                return "\(Quantity.formatBytes(Int64(anon))) + \(Quantity.formatBytes(Int64(file)))"
            }
            if memory.contains(where: { $0 != nil }) { tables.memory.append(row(store, memory.map { $0 ?? "–" })) }
            let faults = summaries.map { _, summary -> String? in
                guard let minor = summary.medianPerOperation(\.resources.phaseMinorFaults),
                    let major = summary.medianPerOperation(\.resources.phaseMajorFaults)
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

    // MARK: - Memory and disk

    /// Per store and scale, the resident memory a store needs per record, as a chart.
    private static func peakMemorySection(_ results: RunResults) -> [String] {
        guard results.cells.contains(where: { ($0.metrics?.resources.rssGrowthBytes ?? 0) > 0 }) else { return [] }
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

    /// What a run of records of a shape stored: its fields, their sizes, the page's filter and sort.
    static func shapeLine(_ shape: RecordShape) -> String {
        let fields = shape.fields.map { field in
            var text = "`\(field.name)` \(field.type.rawValue)"
            switch field.type {
            case .text, .blob:
                text +=
                    " of \(field.minimum)–\(field.maximum) bytes"
                    + (field.sizes == .logUniform ? " (log-uniform)" : "")
            case .integer: text += " \(field.minimum)…\(field.maximum)"
            default: break
            }
            return text + (field.indexed ? " (indexed)" : "")
        }
        return
            "Records of shape `\(shape.name)`: an id and \(shape.fields.count) fields (\(fields.joined(separator: ", "))), "
            + "about \(Quantity.formatBytes(Int64(shape.expectedBytes))) each; a page filters on `\(shape.pageFilter)` and "
            + "sorts by `\(shape.pageSort)`, then id. Each workload asks of these records what the item workload of its "
            + "name asks of items (docs/shapes.md)."
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

    // MARK: - Notes

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
            cells.contains { $0.store == store && ($0.metrics?.phase.settleSeconds ?? 0) > 0 }
        }
        if !settling.isEmpty {
            out.append(
                "Settling at the end of the timed phase (`Store.settle`: the SQLite stores' "
                    + "`wal_checkpoint(TRUNCATE)`, what their close would otherwise do untimed; elsewhere an empty call), "
                    + "median seconds and share of the timed seconds:")
            out.append("")
            out.append(
                contentsOf: storeByScaleTable(cells, stores: settling, scales: scales) { _, _, summary in
                    guard let settle = median(summary.finished.compactMap(\.phase.settleSeconds)),
                        let timed = median(summary.finished.map(\.phase.timedSeconds)), timed > 0
                    else { return nil }
                    return "\(Quantity.formatTime(settle)) (\(String(format: "%.0f", 100 * settle / timed)) %)"
                })
            out.append("")
        }
        return out
    }

    // MARK: - Tables and cells

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
        let isBest = canBeBest && summary.unranked == nil && (best.map { median >= $0 } ?? false)
        var text = isBest ? "**\(formatCount(median)) ops/s** ★" : "\(formatCount(median)) ops/s"
        if throughputs.count > 1, let low = throughputs.min(), let high = throughputs.max() {
            text += " (\(formatCount(low))–\(formatCount(high)))"
        }
        if let best, median > 0, !summary.refusedSecondProcess {
            text += " · \(String(format: "%.2f", best / median))×"
        }
        if let rss = summary.medianPeakRSS {
            text += " · \(Quantity.formatBytes(Int64(rss)))"
            if let growth = summary.medianRSSGrowth { text += " (+\(Quantity.formatBytes(Int64(growth))))" }
        }
        if let unranked = summary.unranked { text += " · " + unranked }
        if let note = summary.workNote { text += " · " + note.replacingOccurrences(of: "|", with: "\\|") }
        let boxed = summary.timeBoxedOperations
        if let fewest = boxed.first, let most = boxed.last {
            text +=
                " · time-boxed: \(fewest == most ? formatCount(Double(fewest)) : "\(formatCount(Double(fewest)))–\(formatCount(Double(most)))")"
                + " ops in \(boxed.count) rep(s)"
        }
        if summary.stoppedShort {
            text +=
                ", on its own time: short of the budget floor (\(formatWhole(TimeBox.budgetSamples)) steps, or all it has)"
        }
        if summary.partialFailures > 0 { text += " · \(summary.partialFailures) rep(s) DNF" }
        return text
    }

    private static func iso(_ date: Date) -> String {
        ISO8601DateFormatter().string(from: date)
    }
}
