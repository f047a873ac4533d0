import Foundation
import PersistenceBench

// The run's machine and how to read its figures: the environment, the reading guide and the harness's share.
extension MarkdownReport {
    /// The machine, the engines and the run's settings.
    static func environmentSection(_ results: RunResults) -> [String] {
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
            "| Git commit | \(environment.gitCommit)"
                + (environment.persistenceBenchCommit.map { "; PersistenceBench \($0)" } ?? "") + " |",
            "| Seed | \(configuration.seed) |",
            "| Repetitions | \(configuration.repetitionsDescription), each in its own process |",
            "| Budgets | \(Quantity.formatBudget(configuration.timeBudgetSeconds)) and "
                + "\(Quantity.formatBytes(configuration.memoryBudgetBytes)) per cell"
                + (configuration.fixtureTimeBudgetSeconds.map {
                    "; \(Quantity.formatBudget($0)) per fixture load (untimed setup)"
                } ?? "")
                + " |",
            "| Write batch | \(configuration.shape.map { $0.recordsPerBatch(configuration.batchSize) } ?? configuration.batchSize) "
                + "records per transaction |",
        ] + fixtureRows(results) + [""]
    }

    /// How many of the fixtures prepared had no check of their store's own.
    private static func unchecked(_ prepared: [CellResult]) -> String {
        let count = prepared.filter { $0.fixture?.checked.hasPrefix("no check") == true }.count
        return count == 0 ? "none here" : "\(count) here"
    }

    /// Which fixtures the run built and which it reused from the fixture cache, each store's by fixture and scale;
    /// none for runs made before the cache.
    static func fixtureRows(_ results: RunResults) -> [String] {
        let prepared = results.cells.filter { $0.fixture != nil }
        guard !prepared.isEmpty else { return [] }
        func list(built: Bool) -> String {
            let cells = prepared.filter { $0.fixture?.built == built }
            guard !cells.isEmpty else { return "none" }
            return orderedUnique(cells.map(\.store)).map { store in
                let mine = cells.filter { $0.store == store }
                let fixtures = orderedUnique(mine.map { "\($0.fixture?.name ?? "") \($0.scale)" })
                let bytes = mine.reduce(Int64(0)) { $0 + ($1.fixture?.bytes ?? 0) }
                return "`\(store)` \(fixtures.joined(separator: ", ")) (\(Quantity.formatBytes(bytes)))"
            }.joined(separator: "; ")
        }
        let place =
            results.configuration.fixtureCache.map {
                "kept in `\($0.directory)` (at most \(Quantity.formatBytes($0.capBytes)))"
            } ?? "in the run's scratch space, removed after each scale"
        var rows = [
            "| Fixtures built | \(prepared.filter { $0.fixture?.built == true }.count), \(place), checked after the "
                + "load: the items fixture of a store with an integrity check by that check and a read of every "
                + "item, any other by its digest alone (\(unchecked(prepared))): " + list(built: true) + " |",
            "| Fixtures reused | \(prepared.filter { $0.fixture?.built == false }.count), each file's digest first "
                + "checked against the one its build recorded: " + list(built: false) + " |",
        ]
        for cell in prepared {
            guard let reason = cell.fixture?.rebuilt else { continue }
            rows.append("| Fixture rebuilt | `\(cell.store)` \(cell.fixture?.name ?? "") \(cell.scale): \(reason) |")
        }
        return rows
    }

    /// How to read a cell; the harness's own share of the timed seconds; how many groups' digests agree.
    static func readingGuide(_ results: RunResults) -> [String] {
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
        let compared = results.digestChecks.filter(\.compared)
        let agreed = compared.filter(\.agreed).count
        let alone = results.digestChecks.count - compared.count
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
            "Digests: \(agreed) of \(compared.count) (workload, scale) groups with more than one store agree across "
                + "stores" + (mismatches == 0 ? "." : "; **\(mismatches) disagree** (see above).")
                + (alone == 0 ? "" : " \(alone) had one store's cells only: not compared.") + boxedNote,
            "",
        ]
    }

    /// How the loops are timed, and the harness's largest share of a cell's timed seconds in this run.
    static func harnessShare(_ results: RunResults) -> [String] {
        let harness = results.cells.compactMap { cell in cell.metrics?.phase.harnessShare.map { (cell, $0) } }
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
}
