import Foundation

/// Two runs of the same matrix, compared cell by cell and store by store.
///
/// A machine does different things to different kinds of work: a host with a faster CPU runs a CPU-bound cell
/// faster and leaves a cell that waits on `fdatasync` where it was. So each cell is first classed by what bounds
/// it (`TimeBound`, from its own counters: the share of its timed seconds it spent off the CPU), and its time per
/// operation divided by the matching probe's change (the CPU and memory loop, or the fdatasync probe). What the
/// probes miss is taken from the stores themselves: each bound's typical (median) store, judged against a wide
/// band, and each workload's typical store, which also cancels a noisy minute in which every store's cell of one
/// workload ran (they run back to back). Each cell is judged relative to its workload's typical store, against
/// its bound's band widened by the spread of its repetitions; each store on the geometric mean of its cells, where
/// the noise of single cells averages out. Digests and bytes on disk are judged strictly. The bands depend on
/// whether both runs come from one machine, one machine class, or not (`ComparisonRule.choosing`). See the
/// README, "Regression checks".
public struct RunComparison: Codable, Sendable {
    /// One metric of one (store, workload, scale).
    public struct Change: Codable, Sendable {
        /// `time/op`, `waits/op`, `peak RSS`, `bytes on disk`, `digest` or `status`.
        public var metric: String
        public var baseline: String
        public var current: String
        /// Current ÷ baseline for numeric metrics. For time: divided by its bound's probe, and relative to its
        /// workload's typical store; a slowdown is judged as the smaller of that and the change after the probe
        /// alone, so that a cell is a regression only when it is slower than both say the machine became.
        public var ratio: Double?
        /// The factor either way within which the change counts as noise; nil for strict metrics.
        public var band: Double?
        public var verdict: Verdict
        /// For time: what bounds the cell, and so which probe and typical store its ratio was divided by.
        public var bound: TimeBound?
        /// For time: the share of the timed seconds off the CPU that classed it, and voluntary context switches
        /// per operation, as measured in the run that classed it; nil where neither run measured them.
        public var waitShare: Double?
        public var waitsPerOperation: Double?
        /// Why a change is shown but not judged (a workload that times the machine, not the store); nil otherwise.
        public var note: String?
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
        /// Its cells of each bound.
        public var cpuCells: Int
        public var ioCells: Int
        public var cells: Int { cpuCells + ioCells }
        /// The geometric mean of its cells' calibrated time ratios (each divided by its bound's probe).
        public var timeRatio: Double
        /// The geometric mean of its cells' ratios relative to their workloads' typical stores: what is judged.
        public var relativeRatio: Double
        public var band: Double
        public var verdict: Verdict
    }

    /// What the machine did to one kind of cell: its probe's change, and the typical store's change beyond it.
    public struct BoundSummary: Codable, Sendable {
        public var bound: TimeBound
        public var cells: Int
        /// The run's median probe, seconds (of a loop round, or of one durable append); nil where the run has none.
        public var baselineProbe: Double?
        public var currentProbe: Double?
        /// Current ÷ baseline probe: the machine's change for this kind of work; 1 when a run lacks the probe.
        public var probeRatio: Double
        /// The median over stores of each store's geometric mean over its cells of this bound, after the probe:
        /// what the machine did that the probe missed, or code every store runs. 1 below
        /// `rule.minimumStoresForTypical` stores.
        public var typicalRatio: Double
        public var band: Double
        public var verdict: Verdict
    }

    /// What every store's cell of one workload did: the typical store over them, relative to other work of the
    /// same bound.
    public struct WorkloadSummary: Codable, Sendable {
        public var workload: String
        public var scale: Scale
        public var bound: TimeBound
        public var stores: Int
        /// The median over its stores of their cells' ratios after the probe; the bound's typical store where
        /// fewer than `rule.minimumStoresForTypical` stores ran it. Its cells are judged relative to this.
        public var typicalRatio: Double
        /// `typicalRatio` ÷ the bound's: what is judged.
        public var relativeRatio: Double
        public var band: Double
        public var verdict: Verdict
    }

    /// The thresholds this comparison applied.
    public var rule: ComparisonRule
    /// One entry per bound that has cells, CPU first.
    public var bounds: [BoundSummary]
    /// One entry per (workload, scale, bound) with time compared, in the run's order.
    public var workloads: [WorkloadSummary]
    /// True when neither run measured how long its cells waited (results from before that was recorded): every
    /// cell is then judged as CPU-bound.
    public var boundsUnmeasured: Bool
    public var cells: [Cell]
    public var stores: [StoreSummary]
    /// Cells in one run and not the other, or with no finished repetition in either: not compared.
    public var notCompared: [String]
    /// (workload, scale) groups whose stores disagree within the current run.
    public var digestDisagreements: [String]

    /// Compares `current` to `baseline` under `rule` (by default the rule for the two runs' machine classes,
    /// `ComparisonRule.choosing`); throws when they cannot be compared (different seeds).
    public init(baseline: RunResults, current: RunResults, rule: ComparisonRule? = nil) throws {
        guard baseline.configuration.seed == current.configuration.seed else {
            throw BenchError(
                "the runs used different seeds (baseline \(baseline.configuration.seed), current "
                    + "\(current.configuration.seed)): their data and digests are not comparable")
        }
        let rule = rule ?? .choosing(baseline: baseline.environment, current: current.environment)
        self.rule = rule
        let probes = Dictionary(
            uniqueKeysWithValues: TimeBound.allCases.map { bound in
                (bound, (Self.probe(bound, of: baseline), Self.probe(bound, of: current)))
            })
        let probeRatios = probes.mapValues { base, now in
            if let base, let now, base > 0 { now / base } else { 1.0 }
        }

        let baseGroups = Self.groups(baseline.cells, storeOrder: baseline.stores)
        let currentGroups = Self.groups(current.cells, storeOrder: current.stores)
        cells = []
        notCompared = []
        boundsUnmeasured = true
        // Every time change, judged once the typical stores are known.
        var timeChanges: [TimeChange] = []
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
                let status = Change(
                    metric: "status", baseline: "ok", current: reason ?? "no repetition", ratio: nil, band: nil,
                    verdict: .worse)
                cells.append(Cell(store: key.store, workload: key.workload, scale: key.scale, changes: [status]))
                continue
            }
            let compared = Self.changes(
                key, base: (baseCells, baseFinished), current: (currentCells, currentFinished), rule: rule,
                probeRatios: probeRatios)
            if compared.boundMeasured { boundsUnmeasured = false }
            if var time = compared.time {
                time.cell = cells.count
                timeChanges.append(time)
            }
            cells.append(Cell(store: key.store, workload: key.workload, scale: key.scale, changes: compared.changes))
        }
        for (key, _) in currentGroups.ordered where baseGroups.byKey[key] == nil {
            notCompared.append("\(key.store) \(key.workload) \(key.scale): not in the baseline")
        }

        let typical = Self.typicalStores(timeChanges, rule: rule, probes: probes, probeRatios: probeRatios)
        bounds = typical.bounds
        workloads = typical.workloads
        // Each cell relative to its workload's typical store, so that a drift every store shares is not a cell's.
        var relative: [(store: String, ratio: Double)] = []
        for time in timeChanges {
            let ratio = time.ratio / typical.byWorkload[time.workloadKey]!
            // A cell's slowdown must show against both normalisers: a cell that waits on memory the way the CPU
            // probe does (the `memory` floor's lookups) follows the probe when the host's memory slows and the
            // other stores of its workload do not; a cell that computes follows its workload's typical store
            // when the probe overstates the machine. A store's summary keeps the typical-relative ratio.
            let judged = ratio > 1 ? min(ratio, max(time.ratio, 1)) : ratio
            cells[time.cell].changes[time.change].ratio = judged
            cells[time.cell].changes[time.change].verdict = Verdict(ratio: judged, band: time.band)
            relative.append((time.key.store, ratio))
        }
        let calibrated = Dictionary(
            uniqueKeysWithValues: Self.geometricMeans(timeChanges.map { ($0.key.store, $0.ratio) }).map {
                ($0.key, $0.mean)
            })
        stores = Self.geometricMeans(relative).map { store in
            let ofStore = timeChanges.filter { $0.key.store == store.key }
            return StoreSummary(
                store: store.key, cpuCells: ofStore.filter { $0.bound == .cpu }.count,
                ioCells: ofStore.filter { $0.bound == .io }.count, timeRatio: calibrated[store.key]!,
                relativeRatio: store.mean, band: rule.storeBand,
                verdict: Verdict(ratio: store.mean, band: rule.storeBand))
        }
        digestDisagreements = current.digestChecks.filter { !$0.agreed }.map { "\($0.workload) at \($0.scale)" }
    }

    /// One cell's changes in time (its verdict left for when the typical stores are known), waits per operation
    /// (wait-bound cells), peak RSS, bytes on disk and digest; its time change, unless its workload times the machine; whether counters classed it.
    static func changes(
        _ key: Key, base: (cells: [CellResult], finished: [CellMetrics]),
        current: (cells: [CellResult], finished: [CellMetrics]), rule: ComparisonRule,
        probeRatios: [TimeBound: Double]
    ) -> (changes: [Change], time: TimeChange?, boundMeasured: Bool) {
        var changes: [Change] = []
        var time: TimeChange?
        // Time per operation, divided by its bound's probe, judged against the repetitions' spread. The bound comes
        // from the baseline's counters where it has them (so that a regression cannot reclass its own cell), else
        // from the current run's.
        let counters = waitCounters(base.finished) ?? waitCounters(current.finished)
        let bound: TimeBound = (counters?.share ?? 0) >= rule.ioWaitShare ? .io : .cpu
        let baseTimes = base.finished.map(\.timePerOperation)
        let currentTimes = current.finished.map(\.timePerOperation)
        if let baseTime = median(baseTimes), let currentTime = median(currentTimes), baseTime > 0, currentTime > 0 {
            let ratio = currentTime / baseTime / probeRatios[bound]!
            let repetitionSpread = max(spread(baseTimes), spread(currentTimes))
            let band = max(rule[bound].cell, pow(repetitionSpread, rule.spreadMultiplier))
            // A workload that times the machine says nothing of a store: shown, never judged.
            let measuresMachine = WorkloadCatalog.workload(named: key.workload)?.measuresMachine ?? false
            if !measuresMachine {
                time = TimeChange(cell: 0, change: changes.count, key: key, bound: bound, ratio: ratio, band: band)
            }
            changes.append(
                Change(
                    metric: "time/op", baseline: Quantity.formatTime(baseTime),
                    current: Quantity.formatTime(currentTime),
                    ratio: ratio, band: measuresMachine ? nil : band, verdict: .same, bound: bound,
                    waitShare: counters?.share, waitsPerOperation: counters?.waitsPerOperation,
                    note: measuresMachine ? "the machine's limit, not judged" : nil))
        }
        // Waits per operation of a wait-bound cell, where both runs counted them.
        if bound == .io, let baseWaits = median(base.finished.compactMap(\.waitsPerOperation)),
            let currentWaits = median(current.finished.compactMap(\.waitsPerOperation)), baseWaits > 0
        {
            let ratio = currentWaits / baseWaits
            changes.append(
                Change(
                    metric: "waits/op", baseline: String(format: "%.2f", baseWaits),
                    current: String(format: "%.2f", currentWaits), ratio: ratio, band: rule.waitsBand,
                    verdict: Verdict(ratio: ratio, band: rule.waitsBand)))
        }
        // Peak resident memory up to the end of the timed phase.
        let basePeaks = base.cells.filter { $0.status == .ok }.compactMap { $0.peakRSSBytes.map(Double.init) }
        let currentPeaks = current.cells.filter { $0.status == .ok }.compactMap { $0.peakRSSBytes.map(Double.init) }
        if let basePeak = median(basePeaks), let currentPeak = median(currentPeaks), basePeak > 0 {
            let ratio = currentPeak / basePeak
            changes.append(
                Change(
                    metric: "peak RSS", baseline: formatBytes(basePeak), current: formatBytes(currentPeak),
                    ratio: ratio, band: rule.memoryBand, verdict: Verdict(ratio: ratio, band: rule.memoryBand)))
        }
        // Stable metrics, strictly: the same operations on the same data leave the same bytes.
        let baseBytes = Set(base.finished.map(\.bytesOnDisk))
        let currentBytes = Set(current.finished.map(\.bytesOnDisk))
        let baseMax = baseBytes.max()!
        let currentMax = currentBytes.max()!
        changes.append(
            Change(
                metric: "bytes on disk", baseline: baseBytes.sorted().map(String.init).joined(separator: "/"),
                current: currentBytes.sorted().map(String.init).joined(separator: "/"),
                ratio: Double(currentMax) / Double(max(baseMax, 1)), band: nil,
                verdict: currentMax > baseMax ? .worse : currentMax < baseMax ? .better : .same))
        // A boxed cell of a run recorded before every cell of a group did the same steps (no `steps`) answered as
        // many questions as its box allowed: its digest is comparable with no other's, and is left out.
        func comparable(_ metrics: [CellMetrics]) -> Set<Digest> {
            Set(metrics.filter { !($0.timeBoxed == true && $0.steps == nil) }.map(\.digest))
        }
        let baseDigests = comparable(base.finished)
        let currentDigests = comparable(current.finished)
        guard !baseDigests.isEmpty || !currentDigests.isEmpty else { return (changes, time, counters != nil) }
        changes.append(
            Change(
                metric: "digest", baseline: baseDigests.map(\.description).sorted().joined(separator: "/"),
                current: currentDigests.map(\.description).sorted().joined(separator: "/"), ratio: nil, band: nil,
                verdict: baseDigests == currentDigests && currentDigests.count == 1 ? .same : .worse))
        return (changes, time, counters != nil)
    }

    /// Each bound's typical store (the median over stores of their geometric means over cells of that bound) and
    /// each (workload, scale, bound)'s (the median over the stores that ran it, or its bound's with fewer than
    /// `rule.minimumStoresForTypical`). Cells of one workload run back to back, so the second also cancels a
    /// minute in which the machine was slow for all of them.
    static func typicalStores(
        _ times: [TimeChange], rule: ComparisonRule, probes: [TimeBound: (Double?, Double?)],
        probeRatios: [TimeBound: Double]
    ) -> (bounds: [BoundSummary], workloads: [WorkloadSummary], byWorkload: [WorkloadKey: Double]) {
        var byBound: [TimeBound: Double] = [:]
        var bounds: [BoundSummary] = []
        for bound in TimeBound.allCases {
            let ofBound = times.filter { $0.bound == bound }
            guard !ofBound.isEmpty else { continue }
            let perStore = geometricMeans(ofBound.map { ($0.key.store, $0.ratio) })
            let ratio = perStore.count >= rule.minimumStoresForTypical ? median(perStore.map(\.mean)) ?? 1 : 1
            byBound[bound] = ratio
            bounds.append(
                BoundSummary(
                    bound: bound, cells: ofBound.count, baselineProbe: probes[bound]?.0, currentProbe: probes[bound]?.1,
                    probeRatio: probeRatios[bound]!, typicalRatio: ratio, band: rule[bound].typical,
                    verdict: Verdict(ratio: ratio, band: rule[bound].typical)))
        }
        var byWorkload: [WorkloadKey: Double] = [:]
        var workloads: [WorkloadSummary] = []
        for time in times where byWorkload[time.workloadKey] == nil {
            let group = times.filter { $0.workloadKey == time.workloadKey }
            let boundTypical = byBound[time.bound]!
            let ratio = group.count >= rule.minimumStoresForTypical ? median(group.map(\.ratio))! : boundTypical
            byWorkload[time.workloadKey] = ratio
            workloads.append(
                WorkloadSummary(
                    workload: time.key.workload, scale: time.key.scale, bound: time.bound, stores: group.count,
                    typicalRatio: ratio, relativeRatio: ratio / boundTypical, band: rule.workloadBand,
                    verdict: Verdict(ratio: ratio / boundTypical, band: rule.workloadBand)))
        }
        return (bounds, workloads, byWorkload)
    }

    /// The median over a run's finished cells of the probe that normalises `bound`, or nil if it has none.
    static func probe(_ bound: TimeBound, of results: RunResults) -> Double? {
        median(
            results.cells.compactMap { cell in
                guard cell.status == .ok, let metrics = cell.metrics else { return nil }
                switch bound {
                case .cpu: return metrics.calibrationSeconds
                case .io: return metrics.syncCalibrationSeconds
                }
            })
    }

    /// The median wait share and waits per operation of a cell's repetitions, or nil where none measured them.
    static func waitCounters(_ repetitions: [CellMetrics]) -> (share: Double, waitsPerOperation: Double?)? {
        guard let share = median(repetitions.compactMap(\.waitShare)) else { return nil }
        return (share, median(repetitions.compactMap(\.waitsPerOperation)))
    }

    /// Geometric means of ratios per store, stores in first-seen order.
    static func geometricMeans(_ ratios: [(store: String, ratio: Double)]) -> [(key: String, count: Int, mean: Double)]
    {
        var order: [String] = []
        var logs: [String: [Double]] = [:]
        for (store, ratio) in ratios {
            if logs[store] == nil { order.append(store) }
            logs[store, default: []].append(log(ratio))
        }
        return order.map { store in
            let values = logs[store]!
            return (store, values.count, exp(values.reduce(0, +) / Double(values.count)))
        }
    }

    struct Key: Hashable {
        var store: String
        var workload: String
        var scale: Scale
    }

    struct WorkloadKey: Hashable {
        var workload: String
        var scale: Scale
        var bound: TimeBound
    }

    /// One cell's time ratio after its probe, with where its change sits in `cells` and its band.
    struct TimeChange {
        var cell: Int
        var change: Int
        var key: Key
        var bound: TimeBound
        var ratio: Double
        var band: Double
        var workloadKey: WorkloadKey { WorkloadKey(workload: key.workload, scale: key.scale, bound: bound) }
    }

    /// A run's cells grouped by (store, workload, scale): (scale, workload) in the run's order, stores within each
    /// in `storeOrder` (the run's shuffled order is not a reader's).
    static func groups(_ cells: [CellResult], storeOrder: [String]) -> (
        ordered: [(Key, [CellResult])], byKey: [Key: [CellResult]]
    ) {
        var order: [Key] = []
        var byKey: [Key: [CellResult]] = [:]
        for cell in cells {
            let key = Key(store: cell.store, workload: cell.workload, scale: cell.scale)
            if byKey[key] == nil { order.append(key) }
            byKey[key, default: []].append(cell)
        }
        var groupRank: [String: Int] = [:]
        for key in order where groupRank["\(key.scale) \(key.workload)"] == nil {
            groupRank["\(key.scale) \(key.workload)"] = groupRank.count
        }
        let storeRank = Dictionary(storeOrder.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        // Ties (stores the order does not name) keep the run's order.
        let sorted = order.enumerated().sorted {
            let left = (
                groupRank["\($0.element.scale) \($0.element.workload)"]!, storeRank[$0.element.store] ?? Int.max
            )
            let right = (
                groupRank["\($1.element.scale) \($1.element.workload)"]!, storeRank[$1.element.store] ?? Int.max
            )
            return left != right ? left < right : $0.offset < $1.offset
        }.map(\.element)
        return (sorted.map { ($0, byKey[$0]!) }, byKey)
    }

    /// Slowest ÷ fastest; 1 for a single value.
    static func spread(_ values: [Double]) -> Double {
        guard let low = values.min(), let high = values.max(), low > 0 else { return 1 }
        return high / low
    }

    static func formatBytes(_ bytes: Double) -> String { String(format: "%.1f MiB", bytes / 1_048_576) }
}
