import Foundation

/// The thresholds of a comparison. The README's "Regression checks" section states the rule these parametrise.
public struct ComparisonRule: Codable, Sendable {
    /// A cell's time ratio inside this factor either way is "same", however steady its repetitions were.
    public var minimumCellBand: Double
    /// The observed spread of a cell's repetitions (slowest ÷ fastest, in either run) raised to this power is
    /// its band, when that is wider than the minimum: on a log scale, the spread times this.
    public var spreadMultiplier: Double
    /// A store's geometric-mean time ratio, relative to the run's typical store, inside this factor either way is
    /// "same".
    public var storeBand: Double
    /// The typical store's calibrated time ratio (a change every store shares) inside this factor is "same".
    public var typicalBand: Double
    /// Peak resident memory inside this factor either way is "same".
    public var memoryBand: Double
    /// Below this many stores there is no typical store: times are judged on their calibrated ratios alone.
    public var minimumStoresForTypical: Int

    public init(
        minimumCellBand: Double, spreadMultiplier: Double, storeBand: Double, typicalBand: Double,
        memoryBand: Double, minimumStoresForTypical: Int
    ) {
        self.minimumCellBand = minimumCellBand
        self.spreadMultiplier = spreadMultiplier
        self.storeBand = storeBand
        self.typicalBand = typicalBand
        self.memoryBand = memoryBand
        self.minimumStoresForTypical = minimumStoresForTypical
    }

    /// The README's "Regression checks" gives the observations these come from.
    public static let standard = ComparisonRule(
        minimumCellBand: 1.5, spreadMultiplier: 1.5, storeBand: 1.10, typicalBand: 1.5, memoryBand: 1.25,
        minimumStoresForTypical: 3)
}

/// What a change in one metric means.
public enum Verdict: String, Codable, Sendable, Comparable {
    case better, same, worse

    public static func < (lhs: Verdict, rhs: Verdict) -> Bool { lhs.rank < rhs.rank }
    private var rank: Int {
        switch self {
        case .better: 0
        case .same: 1
        case .worse: 2
        }
    }

    /// Worse when `ratio` (current ÷ baseline, where larger is worse) leaves the band above, better below it.
    init(ratio: Double, band: Double) {
        self = ratio > band ? .worse : ratio < 1 / band ? .better : .same
    }
}

/// Two runs of the same matrix, compared cell by cell and store by store.
///
/// Times are per operation and divided by their run's calibration (`Calibration`), so a slower machine does
/// not read as a slower store. Each store's time is the geometric mean over its cells, where noise in single
/// cells averages out, and is judged relative to the typical (median) store of the run, which cancels whatever
/// the machine did to every store alike; the typical store's own change is judged against a wide band. Cells
/// are judged relative to the typical store against a band drawn from the spread of their repetitions. Digests
/// and bytes on disk are judged strictly. See the README, "Regression checks".
public struct RunComparison: Codable, Sendable {
    /// One metric of one (store, workload, scale).
    public struct Change: Codable, Sendable {
        /// `time/op`, `peak RSS`, `bytes on disk`, `digest` or `status`.
        public var metric: String
        public var baseline: String
        public var current: String
        /// Current ÷ baseline for numeric metrics (for time: calibrated, and relative to the typical store).
        public var ratio: Double?
        /// The factor either way within which the change counts as noise; nil for strict metrics.
        public var band: Double?
        public var verdict: Verdict
    }

    public struct Cell: Codable, Sendable {
        public var store: String
        public var workload: String
        public var scale: Scale
        public var changes: [Change]
        public var verdict: Verdict { changes.map(\.verdict).max() ?? .same }
    }

    /// A store's time over all its compared cells.
    public struct StoreSummary: Codable, Sendable {
        public var store: String
        public var cells: Int
        /// The geometric mean of its cells' calibrated time ratios.
        public var timeRatio: Double
        /// `timeRatio` ÷ the typical store's: what is judged.
        public var relativeRatio: Double
        public var band: Double
        public var verdict: Verdict
    }

    /// The thresholds this comparison applied.
    public var rule: ComparisonRule
    /// The median calibration of each run, seconds per round; nil where a run has none (results from before
    /// calibration was recorded: times are then compared as measured).
    public var baselineCalibration: Double?
    public var currentCalibration: Double?
    public var cells: [Cell]
    public var stores: [StoreSummary]
    /// The median of the stores' calibrated time ratios (1 with fewer than `rule.minimumStoresForTypical` stores):
    /// a change all stores share, which is either the machine (what calibration did not catch) or code every
    /// store runs. Store and cell times are judged relative to it.
    public var typicalTimeRatio: Double
    public var typicalVerdict: Verdict
    /// Cells in one run and not the other, or with no finished repetition in either: not compared.
    public var notCompared: [String]
    /// (workload, scale) groups whose stores disagree within the current run.
    public var digestDisagreements: [String]

    /// Everything that makes the current run a regression, one line each; empty when it passes.
    public var regressions: [String] {
        var lines = digestDisagreements.map { "digests disagree across stores: \($0)" }
        if typicalVerdict == .worse {
            lines.append(
                "every store: the typical store's time ×\(Self.format(typicalTimeRatio)) after calibration (band "
                    + "×\(Self.format(rule.typicalBand)))")
        }
        for store in stores where store.verdict == .worse {
            lines.append(
                "\(store.store): time ×\(Self.format(store.relativeRatio)) relative to the typical store, over "
                    + "\(store.cells) cells (band ×\(Self.format(store.band)))")
        }
        for cell in cells {
            for change in cell.changes where change.verdict == .worse {
                var line =
                    "\(cell.store) \(cell.workload) \(cell.scale): \(change.metric) \(change.baseline) → \(change.current)"
                if let ratio = change.ratio, let band = change.band {
                    line += " (×\(Self.format(ratio)), band ×\(Self.format(band)))"
                }
                lines.append(line)
            }
        }
        return lines
    }

    /// Compares `current` to `baseline`; throws when they cannot be compared (different seeds, nothing in
    /// common).
    public init(baseline: RunResults, current: RunResults, rule: ComparisonRule = .standard) throws {
        guard baseline.configuration.seed == current.configuration.seed else {
            throw BenchError(
                "the runs used different seeds (baseline \(baseline.configuration.seed), current "
                    + "\(current.configuration.seed)): their data and digests are not comparable")
        }
        self.rule = rule
        baselineCalibration = Self.calibration(of: baseline)
        currentCalibration = Self.calibration(of: current)
        // Both normalised, or neither: a ratio of a calibrated and an uncalibrated time would mean nothing.
        let calibrated = baselineCalibration != nil && currentCalibration != nil
        let baseScale = calibrated ? baselineCalibration! : 1
        let currentScale = calibrated ? currentCalibration! : 1

        let baseGroups = Self.groups(baseline.cells)
        let currentGroups = Self.groups(current.cells)
        cells = []
        notCompared = []
        var logRatios: [String: [Double]] = [:]
        var storeOrder: [String] = []
        // (cell index, change index, calibrated ratio, band) of every time change, judged once the typical store
        // is known.
        var timeChanges: [(cell: Int, change: Int, ratio: Double, band: Double)] = []
        for (key, baseCells) in baseGroups.ordered {
            let label = "\(key.store) \(key.workload) \(key.scale)"
            guard let currentCells = currentGroups.byKey[key] else {
                notCompared.append("\(label): not in the current run")
                continue
            }
            let baseFinished = baseCells.compactMap { $0.status == .ok ? $0.metrics : nil }
            let currentFinished = currentCells.compactMap { $0.status == .ok ? $0.metrics : nil }
            if baseFinished.isEmpty {
                if baseCells.allSatisfy({ $0.status != .notApplicable }) {
                    notCompared.append("\(label): no finished repetition in the baseline")
                }
                continue
            }
            guard !currentFinished.isEmpty else {
                let reason = currentCells.first { $0.status != .ok }.map { "\($0.status.rawValue): \($0.reason ?? "")" }
                cells.append(
                    Cell(
                        store: key.store, workload: key.workload, scale: key.scale,
                        changes: [
                            Change(
                                metric: "status", baseline: "ok", current: reason ?? "no repetition", ratio: nil,
                                band: nil, verdict: .worse)
                        ]))
                continue
            }
            var changes: [Change] = []
            // Time per operation, calibrated, judged against the repetitions' spread.
            let baseTimes = baseFinished.map { $0.timePerOperation / baseScale }
            let currentTimes = currentFinished.map { $0.timePerOperation / currentScale }
            if let baseTime = median(baseTimes), let currentTime = median(currentTimes), baseTime > 0,
                currentTime > 0
            {
                let ratio = currentTime / baseTime
                let spread = max(Self.spread(baseTimes), Self.spread(currentTimes))
                let band = max(rule.minimumCellBand, pow(spread, rule.spreadMultiplier))
                timeChanges.append((cells.count, changes.count, ratio, band))
                changes.append(
                    Change(
                        metric: "time/op", baseline: Self.formatTime(median(baseFinished.map(\.timePerOperation))!),
                        current: Self.formatTime(median(currentFinished.map(\.timePerOperation))!), ratio: ratio,
                        band: band, verdict: .same))
                if logRatios[key.store] == nil { storeOrder.append(key.store) }
                logRatios[key.store, default: []].append(log(ratio))
            }
            // Peak resident memory up to the end of the timed phase.
            let basePeaks = baseCells.filter { $0.status == .ok }.compactMap { $0.peakRSSBytes.map(Double.init) }
            let currentPeaks = currentCells.filter { $0.status == .ok }.compactMap { $0.peakRSSBytes.map(Double.init) }
            if let basePeak = median(basePeaks), let currentPeak = median(currentPeaks), basePeak > 0 {
                let ratio = currentPeak / basePeak
                changes.append(
                    Change(
                        metric: "peak RSS", baseline: Self.formatBytes(basePeak),
                        current: Self.formatBytes(currentPeak), ratio: ratio, band: rule.memoryBand,
                        verdict: Verdict(ratio: ratio, band: rule.memoryBand)))
            }
            // Stable metrics, strictly: the same operations on the same data leave the same bytes.
            let baseBytes = Set(baseFinished.map(\.bytesOnDisk))
            let currentBytes = Set(currentFinished.map(\.bytesOnDisk))
            let baseMax = baseBytes.max()!
            let currentMax = currentBytes.max()!
            changes.append(
                Change(
                    metric: "bytes on disk", baseline: baseBytes.sorted().map(String.init).joined(separator: "/"),
                    current: currentBytes.sorted().map(String.init).joined(separator: "/"),
                    ratio: Double(currentMax) / Double(max(baseMax, 1)), band: nil,
                    verdict: currentMax > baseMax ? .worse : currentMax < baseMax ? .better : .same))
            let baseDigests = Set(baseFinished.map(\.digest))
            let currentDigests = Set(currentFinished.map(\.digest))
            changes.append(
                Change(
                    metric: "digest", baseline: baseDigests.map(\.description).sorted().joined(separator: "/"),
                    current: currentDigests.map(\.description).sorted().joined(separator: "/"), ratio: nil, band: nil,
                    verdict: baseDigests == currentDigests && currentDigests.count == 1 ? .same : .worse))
            cells.append(Cell(store: key.store, workload: key.workload, scale: key.scale, changes: changes))
        }
        for (key, _) in currentGroups.ordered where baseGroups.byKey[key] == nil {
            notCompared.append("\(key.store) \(key.workload) \(key.scale): not in the baseline")
        }
        let storeRatios = storeOrder.map { store in
            let logs = logRatios[store]!
            return (store: store, cells: logs.count, ratio: exp(logs.reduce(0, +) / Double(logs.count)))
        }
        let typical =
            storeRatios.count >= rule.minimumStoresForTypical ? median(storeRatios.map(\.ratio)) ?? 1 : 1
        typicalTimeRatio = typical
        typicalVerdict = Verdict(ratio: typical, band: rule.typicalBand)
        stores = storeRatios.map { store in
            StoreSummary(
                store: store.store, cells: store.cells, timeRatio: store.ratio, relativeRatio: store.ratio / typical,
                band: rule.storeBand, verdict: Verdict(ratio: store.ratio / typical, band: rule.storeBand))
        }
        // Each cell relative to the typical store too, so that a drift every store shares is not a cell's.
        for time in timeChanges {
            cells[time.cell].changes[time.change].ratio = time.ratio / typical
            cells[time.cell].changes[time.change].verdict = Verdict(ratio: time.ratio / typical, band: time.band)
        }
        digestDisagreements = current.digestChecks.filter { !$0.agreed }.map { "\($0.workload) at \($0.scale)" }
    }

    /// The median of a run's cell calibrations, or nil if it has none.
    static func calibration(of results: RunResults) -> Double? {
        median(results.cells.compactMap { $0.status == .ok ? $0.metrics?.calibrationSeconds : nil })
    }

    struct Key: Hashable {
        var store: String
        var workload: String
        var scale: Scale
    }

    /// A run's cells grouped by (store, workload, scale), in the run's order.
    static func groups(_ cells: [CellResult]) -> (ordered: [(Key, [CellResult])], byKey: [Key: [CellResult]]) {
        var order: [Key] = []
        var byKey: [Key: [CellResult]] = [:]
        for cell in cells {
            let key = Key(store: cell.store, workload: cell.workload, scale: cell.scale)
            if byKey[key] == nil { order.append(key) }
            byKey[key, default: []].append(cell)
        }
        return (order.map { ($0, byKey[$0]!) }, byKey)
    }

    /// Slowest ÷ fastest; 1 for a single value.
    static func spread(_ values: [Double]) -> Double {
        guard let low = values.min(), let high = values.max(), low > 0 else { return 1 }
        return high / low
    }

    public static func format(_ ratio: Double) -> String { String(format: "%.2f", ratio) }

    static func formatTime(_ seconds: Double) -> String {
        if seconds >= 1 { return String(format: "%.3g s", seconds) }
        if seconds >= 1e-3 { return String(format: "%.3g ms", seconds * 1e3) }
        if seconds >= 1e-6 { return String(format: "%.3g µs", seconds * 1e6) }
        return String(format: "%.3g ns", seconds * 1e9)
    }

    static func formatBytes(_ bytes: Double) -> String { String(format: "%.1f MiB", bytes / 1_048_576) }
}

extension CellMetrics {
    /// Seconds per timed operation.
    public var timePerOperation: Double { operations > 0 ? timedSeconds / Double(operations) : timedSeconds }
}

/// The median (mean of the two middle values for an even count), or nil for no values.
public func median(_ values: [Double]) -> Double? {
    guard !values.isEmpty else { return nil }
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}
