import Foundation
import PersistenceBench

// MARK: - Declarations

/// The published findings as data (`docs/findings.json`): each names the committed runs it rests on, the sentence
/// around its figures, and each figure as a statistic of named cells.
///
/// `persistbench findings` renders README's findings section and docs/findings.md's figure-by-figure part from them;
/// `--check` renders them again from the committed results and names every figure the published text states otherwise.
/// No figure is typed by hand.
package struct FindingDeclarations: Codable, Sendable {
    /// The paragraph above the list: what every finding shares.
    package var header: String
    package var findings: [Finding]

    /// Decodes the declarations, refusing a key no declaration has (a typo would otherwise drop what it meant to
    /// say, and publish another figure): each named with the finding and figure it is in.
    package static func decode(_ data: Data) throws -> FindingDeclarations {
        let declarations = try JSONDecoder().decode(FindingDeclarations.self, from: data)
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        var unknown = Set(object.keys).subtracting(["header", "findings"]).sorted().map { "'\($0)' at the top" }
        let figureKeys: Set<String> = [
            "kind", "run", "store", "over", "workload", "scale", "of", "percentile", "operation", "field", "unit",
            "check",
        ]
        for (offset, finding) in (object["findings"] as? [[String: Any]] ?? []).enumerated() {
            unknown += Set(finding.keys).subtracting(["title", "runs", "link", "text", "figures"]).sorted().map {
                "'\($0)' in finding \(offset + 1)"
            }
            for (name, figure) in (finding["figures"] as? [String: [String: Any]] ?? [:]).sorted(by: { $0.key < $1.key }
            ) {
                unknown += Set(figure.keys).subtracting(figureKeys).sorted().map {
                    "'\($0)' in finding \(offset + 1)'s figure {\(name)}"
                }
            }
        }
        guard unknown.isEmpty else {
            throw BenchError(
                "unknown key(s): " + unknown.joined(separator: ", ") + " (known for a figure: "
                    + figureKeys.sorted().joined(separator: ", ") + ")")
        }
        return declarations
    }
}

/// One finding: `text` with `{name}` where each of `figures` goes.
package struct Finding: Codable, Sendable {
    /// The lead, in bold.
    package var title: String
    /// The committed runs, as directories from the repository's root; a figure's `run` is an index into them.
    package var runs: [String]
    /// The page a reader follows for the detail (a run's README.md or report.md).
    package var link: String
    package var text: String
    package var figures: [String: FigureDeclaration]
}

/// A figure: one statistic of one cell (or a ratio of two), medians over the repetitions with their range.
package struct FigureDeclaration: Codable, Sendable {
    package enum Kind: String, Codable, Sendable {
        /// Operations per second.
        case ops
        /// Timed seconds per operation.
        case time
        /// The whole timed phase, seconds: what `open`'s launch (the open and its first page) took.
        case phase
        /// A latency percentile (`percentile`: p50, p95, p99, p999, max), of `operation` (YCSB's READ, UPDATE…)
        /// where given: stated with the samples behind it.
        case latency
        /// Any number a cell records, by its path in the cell's JSON (`field`: `metrics.timedPeakRSSBytes`).
        case value
        /// `store`'s statistic over `over`'s (`of`: time, latency or value), paired by repetition.
        case ratio
        /// A crash campaign's (`crash.json`) count `field` summed over its stores for one `check`, with the
        /// trials per store and, for none, the share of states it bounds at 95 %.
        case crash
    }

    package enum Unit: String, Codable, Sendable {
        case seconds, microseconds, bytes, count
    }

    package var kind: Kind
    package var run: Int?
    package var store: String?
    package var over: String?
    package var workload: String?
    package var scale: String?
    /// For a ratio: what is divided (`time`, `latency`, `value`); time by default.
    package var of: Kind?
    package var percentile: String?
    package var operation: String?
    package var field: String?
    package var unit: Unit?
    package var check: String?
}

// MARK: - Rendering

/// What a figure renders to, and what it rests on (for docs/findings.md's detail).
package struct RenderedFigure: Sendable, Equatable {
    package var text: String
    package var basis: String
}

/// Renders findings from the runs they name.
package struct FindingRenderer {
    /// The repository's root: runs are found beside it.
    package let root: URL
    private var benchmarks: [String: RunResults] = [:]
    private var campaigns: [String: [String: Any]] = [:]

    package init(root: URL) {
        self.root = root
    }

    /// A run's recorded environment, from its `results.json` or `crash.json`.
    package mutating func environment(of run: String) throws -> RunEnvironment {
        if let results = try? benchmark(run) { return results.environment }
        let data = try Data(contentsOf: root.appendingPathComponent(run).appendingPathComponent("crash.json"))
        struct Campaign: Decodable { var environment: RunEnvironment }
        return try JSONDecoder().decode(Campaign.self, from: data).environment
    }

    private mutating func benchmark(_ run: String) throws -> RunResults {
        if let cached = benchmarks[run] { return cached }
        let url = root.appendingPathComponent(run).appendingPathComponent("results.json")
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw BenchError("\(run): no results.json (is it a committed run?)")
        }
        let results = try RunResults.load(from: url)
        benchmarks[run] = results
        return results
    }

    private mutating func campaign(_ run: String) throws -> [String: Any] {
        if let cached = campaigns[run] { return cached }
        let url = root.appendingPathComponent(run).appendingPathComponent("crash.json")
        guard let data = try? Data(contentsOf: url),
            let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { throw BenchError("\(run): no crash.json a campaign wrote") }
        campaigns[run] = object
        return object
    }

    /// One figure of `finding`, or why it cannot be stated.
    package mutating func render(_ figure: FigureDeclaration, of finding: Finding) throws -> RenderedFigure {
        let index = figure.run ?? 0
        guard finding.runs.indices.contains(index) else {
            throw BenchError("names run \(index), and the finding has \(finding.runs.count)")
        }
        let run = finding.runs[index]
        if figure.kind == .crash { return try crashFigure(figure, run: run) }
        let results = try benchmark(run)
        let store = try required(figure.store, "store")
        if figure.kind == .ratio, let of = figure.of, ![.time, .phase, .latency, .value].contains(of) {
            throw BenchError("a ratio divides time, phase, latency or value (of a store's time: not \(of.rawValue))")
        }
        let samples = try self.samples(
            figure, kind: figure.kind == .ratio ? figure.of ?? .time : figure.kind,
            store: store, results: results)
        let cell = "`\(store) \(try required(figure.workload, "workload")) \(try required(figure.scale, "scale"))`"
        guard figure.kind == .ratio else {
            let text =
                switch figure.kind {
                case .ops: Self.spread(samples.values, unit: nil, suffix: " ops/s")
                case .value: Self.spread(samples.values, unit: figure.unit ?? .count)
                default: Self.spread(samples.values, unit: .seconds)
                }
            return RenderedFigure(
                text: text,
                basis: "\(cell) in \(run): \(samples.statistic), median of \(Self.repetitions(samples.values.count))"
                    + samples.n)
        }
        let over = try required(figure.over, "over")
        let base = try self.samples(figure, kind: figure.of ?? .time, store: over, results: results)
        // Only the repetitions both stores finished: the median and the range of the same pairs.
        let paired = samples.byRepetition.keys.filter { base.byRepetition[$0] != nil }.sorted()
        let ratios = paired.compactMap { repetition in
            base.byRepetition[repetition].flatMap { $0 > 0 ? (samples.byRepetition[repetition] ?? 0) / $0 : nil }
        }
        guard let top = median(paired.compactMap { samples.byRepetition[$0] }),
            let bottom = median(paired.compactMap { base.byRepetition[$0] }), bottom > 0,
            let low = ratios.min(), let high = ratios.max()
        else {
            throw BenchError("\(cell) over `\(over)`: no repetition of both finished")
        }
        let ratio = top / bottom
        let range =
            ratios.count > 1 ? " (" + Self.ratioText(low) + "–" + Self.ratioText(high) + ")" : " (one repetition)"
        return RenderedFigure(
            text: Self.ratioText(ratio) + "×" + range,
            basis: "\(cell) ÷ `\(over)` in \(run): \(samples.statistic), ratio of medians of the "
                + "\(Self.repetitions(ratios.count)) both finished, and the range of their ratios paired by repetition"
                + samples.n)
    }

    private struct Samples {
        var byRepetition: [Int: Double]
        var values: [Double] { byRepetition.keys.sorted().compactMap { byRepetition[$0] } }
        var statistic: String
        /// ", n = …": the samples each repetition's percentile rests on.
        var n: String
    }

    private func samples(
        _ figure: FigureDeclaration, kind: FigureDeclaration.Kind, store: String, results: RunResults
    ) throws -> Samples {
        let workload = try required(figure.workload, "workload")
        guard let scale = Scale(parsing: try required(figure.scale, "scale")) else {
            throw BenchError("scale '\(figure.scale ?? "")' is not a scale")
        }
        let all = results.cells.cells(of: SeriesID(store: store, workload: workload, scale: scale))
        guard !all.isEmpty else {
            throw BenchError("`\(store) \(workload) \(scale)`: the run has no such cell")
        }
        let cells = all.filter { $0.status == .ok }
        guard !cells.isEmpty else {
            let reason = all.compactMap(\.reason).first.map { ": \($0)" } ?? ""
            throw BenchError("`\(store) \(workload) \(scale)`: no repetition finished\(reason)")
        }
        var values: [Int: Double] = [:]
        var counts: [Int] = []
        var statistic = ""
        for cell in cells {
            guard let metrics = cell.metrics else { continue }
            let sample = try value(of: figure, kind: kind, in: cell, metrics, label: "`\(store) \(workload) \(scale)`")
            values[cell.repetition] = sample.value
            statistic = sample.statistic
            if let count = sample.count { counts.append(count) }
        }
        var n = ""
        if let fewest = counts.min() {
            // A p99 needs 100 samples to be more than the slowest, a p99.9 1,000: under that, call it the max.
            let needed = ["p95": 20, "p99": 100, "p999": 1_000][figure.percentile ?? ""] ?? 1
            if fewest < needed {
                throw BenchError(
                    "`\(store) \(workload) \(scale)`: a \(figure.percentile ?? "") of \(fewest) sample(s) is the "
                        + "slowest of them (under \(formatWhole(needed))): call it the max")
            }
            n = ", n = " + Self.span(counts) + " a repetition"
        } else {
            n = ", " + Self.span(cells.compactMap { $0.metrics?.phase.operations }) + " operations a repetition"
        }
        return Samples(byRepetition: values, statistic: statistic, n: n)
    }

    /// One repetition's figure of `kind` (the cell named `label`), what statistic it is, and for a percentile the
    /// samples it rests on.
    private func value(
        of figure: FigureDeclaration, kind: FigureDeclaration.Kind, in cell: CellResult, _ metrics: CellMetrics,
        label: String
    ) throws -> (value: Double, statistic: String, count: Int?) {
        switch kind {
        case .ops:
            return (metrics.phase.operationsPerSecond, "operations per second", nil)
        case .time:
            return (
                metrics.phase.timedSeconds / Double(max(metrics.phase.operations, 1)), "timed seconds per operation",
                nil
            )
        case .phase:
            return (metrics.phase.timedSeconds, "the timed phase's seconds", nil)
        case .latency:
            let name = try required(figure.percentile, "percentile")
            let summary = figure.operation.map { metrics.phase.latencyByOperation?[$0] } ?? metrics.phase.latency
            guard let summary else {
                throw BenchError("\(label) recorded no latencies" + (figure.operation.map { " of \($0)" } ?? ""))
            }
            guard let value = Self.percentile(name, of: summary) else {
                throw BenchError("percentile '\(name)' is none of p50, p95, p99, p999, max")
            }
            let statistic = (name == "max" ? "the slowest" : name) + (figure.operation.map { " of \($0)" } ?? "")
            return (value / 1e6, statistic, summary.count)  // microseconds
        case .value:
            let field = try required(figure.field, "field")
            guard let value = try Self.number(at: field, in: cell) else {
                throw BenchError("\(label) has no number at \(field)")
            }
            return (figure.unit == .microseconds ? value / 1e6 : value, field, nil)
        case .ratio, .crash:
            throw BenchError("a ratio divides time, phase, latency or value")
        }
    }

    private mutating func crashFigure(_ figure: FigureDeclaration, run: String) throws -> RenderedFigure {
        let check = try required(figure.check, "check")
        let field = try required(figure.field, "field")
        let summaries = (try campaign(run)["summaries"] as? [[String: Any]] ?? []).filter {
            $0["check"] as? String == check
        }
        guard !summaries.isEmpty else { throw BenchError("\(run) ran no '\(check)' check") }
        let counts = summaries.compactMap { ($0[field] as? NSNumber)?.intValue }
        guard counts.count == summaries.count else {
            throw BenchError("\(run): its '\(check)' summaries have no count '\(field)'")
        }
        let total = counts.reduce(0, +)
        let trials = summaries.compactMap { ($0["trials"] as? NSNumber)?.intValue }
        guard let fewest = trials.min() else { throw BenchError("\(run): no trials recorded") }
        let most = trials.max() ?? fewest
        var text =
            "\(formatWhole(total)) \(field) of "
            + (most == fewest
                ? formatWhole(fewest)
                : "\(formatWhole(fewest))–\(formatWhole(most))") + " each (\(summaries.count) stores"
        if total == 0 {
            // The share of states a store could break and still show none in `fewest` trials, 95 % of the time.
            let bound = 1 - pow(0.05, 1 / Double(fewest))
            text += String(format: ", ≤ %.2g %% at 95 %%", bound * 100)
        }
        text += ")"
        return RenderedFigure(
            text: text,
            basis: "\(run)/crash.json: `\(field)` of its \(summaries.count) stores' \(check) checks, summed")
    }

    // MARK: - Reading a figure

    private func required(_ value: String?, _ name: String) throws -> String {
        guard let value, !value.isEmpty else { throw BenchError("needs a \(name)") }
        return value
    }

    static func percentile(_ name: String, of summary: LatencySummary) -> Double? {
        switch name {
        case "p50": summary.p50
        case "p95": summary.p95
        case "p99": summary.p99
        case "p999": summary.p999
        case "max": summary.max
        default: nil
        }
    }

    /// A number in a cell's JSON by its dotted path (`metrics.pinnedReader.walPeakBytes`).
    static func number(at path: String, in cell: CellResult) throws -> Double? {
        var node: Any? = try JSONSerialization.jsonObject(with: JSONEncoder().encode(cell))
        for key in path.split(separator: ".") { node = (node as? [String: Any])?[String(key)] }
        return (node as? NSNumber)?.doubleValue
    }

    // MARK: - Text

    /// `10,000`, or `615–713` where the repetitions differ.
    static func span(_ counts: [Int]) -> String {
        guard let low = counts.min(), let high = counts.max() else { return "0" }
        return low == high ? formatWhole(low) : formatWhole(low) + "–" + formatWhole(high)
    }

    static func repetitions(_ count: Int) -> String { count == 1 ? "1 repetition" : "\(count) repetitions" }

    /// `0.34`, `19.9`, `1.47`: a ratio to three significant digits.
    static func ratioText(_ ratio: Double) -> String { formatSignificant(ratio) }

    /// The median with its range in the median's unit: `126 µs (120–131)`, `665 MiB (660–670)`, `3.8M (3.6M–4.0M)`.
    static func spread(_ values: [Double], unit: FigureDeclaration.Unit?, suffix: String = "") -> String {
        guard let middle = median(values), let low = values.min(), let high = values.max() else { return "" }
        let (scale, name) = Self.scale(of: middle, unit: unit)
        func number(_ value: Double) -> String {
            unit == nil || unit == .count ? formatCount(value) : formatSignificant(value / scale)
        }
        let head = number(middle) + name + suffix
        if values.count == 1 { return head + " (one repetition)" }
        if number(low) == number(high) { return head + " (all \(values.count) alike)" }
        return head + " (" + number(low) + "–" + number(high) + ")"
    }

    private static func scale(of value: Double, unit: FigureDeclaration.Unit?) -> (Double, String) {
        switch unit {
        case .seconds, .microseconds:
            for (factor, name) in [(1.0, " s"), (1e-3, " ms"), (1e-6, " µs")] where value >= factor {
                return (factor, name)
            }
            return (1e-9, " ns")
        case .bytes:
            for (factor, name) in [(0x1p40, " TiB"), (0x1p30, " GiB"), (0x1p20, " MiB"), (0x1p10, " KiB")]
            where value >= factor {
                return (factor, name)
            }
            return (1, " B")
        case .count, nil:
            return (1, "")
        }
    }
}
