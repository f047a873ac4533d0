import Foundation

// MARK: - The comparison

/// A counted run (`run --count`) judged against a counted baseline, cell by cell, store by store and over every
/// cell together, on what no machine changes: instructions, allocations, flushes and writes per operation, bytes
/// on disk and digests.
///
/// The same binary counts the same on any host but for glibc's CPU-specific string routines, so its bands are narrow:
/// `Bands.measured` says where each comes from.
package struct CounterComparison: Codable, Sendable {
    // MARK: - Bands

    /// How far each counter may move before it is a change.
    package struct Bands: Codable, Sendable, Equatable {
        /// A cell's instructions per operation inside this factor either way are "same".
        package var cellInstructions: Double
        /// A store's geometric mean over its cells, and every cell's together, inside this factor are "same":
        /// narrower than a cell's, since what moves one cell alone (a string routine it leans on) averages out.
        package var storeInstructions: Double
        /// More allocations than this per operation are "worse"; as many fewer, "better".
        package var allocationsPerOperation: Double
        /// Write calls and bytes written per operation inside this factor either way are "same".
        package var writes: Double
        /// System calls per operation, the allocator's left out: a change beyond this band, the floor's count per
        /// operation and 8 calls in the cell.
        ///
        /// A pool's threads made 4 more futex calls in a 40-step cell (`grdb teams-per-sport`, 59 → 63) counted beside
        /// a test run; a call added to every operation is 50 in a counted cell.
        package var systemCalls: Band = Band(factor: 1.02, floor: 0.05, perCell: 8)
        /// Minor page faults per operation: valgrind's own faults (its translations) move with what else the
        /// machine runs, and a mapped store's with what the page cache holds around the page it touches.
        ///
        /// They moved a cell by up to 127 faults (0.5 MiB of pages: `sqlite+fts get`, 485 → 612 in 50 lookups, counted
        /// beside CI's tests), whatever its length, so a change must also be 512 faults in the cell: 2 MiB.
        package var minorFaults: Band = Band(factor: 1.25, floor: 2, perCell: 512)
        /// Major page faults per operation (a page read from storage to be mapped): 0 in every committed cell, but a
        /// fresh checkout's counted `grdb get-zipfian 2k` faulted 3 times in its 50 lookups beside CI's tests (pages of
        /// a just-built binary or library read back), so a change must also be more than 8 in the cell; a read from
        /// storage every operation is 50.
        package var majorFaults: Band = Band(factor: 1.10, floor: 0.05, perCell: 8)
        /// Bytes read from storage per operation; a cell's comparison also lets it read its files back once, and
        /// wait once a page for them (a machine short of memory evicts them: docs/regression-checks.md).
        package var bytesReadFromStorage: Band = Band(factor: 1.10, floor: 4096)
        /// Voluntary context switches (waits that gave up the CPU) per operation: a store's threads hand
        /// valgrind's lock to each other more often on a busy machine, and a flush waits for the disk as often as
        /// the disk makes it.
        ///
        /// Flushing cells waited 2.5–7.1 times a flush in the committed baselines (`lmdb`'s the most), and one host's
        /// disk halved `lmdb ycsb-f 2k`'s (3.16 → 1.46 a lookup-and-update, 0.46 flushes each), so a change must also
        /// be more than 8 waits a flush: flushes themselves are judged exactly.
        package var voluntarySwitches: Band = Band(factor: 2, floor: 0.5, perFlush: 8)
        /// A baseline with this many repetitions of a cell or more gives each counter that moves with scheduling and
        /// the page cache (system calls, faults, reads, waits) the range its repetitions measured (`Spread`): a change
        /// must also leave that range, widened by `spreadMargin` of it each way.
        ///
        /// Three: the fewest that show a range. Not instructions nor allocations, which repeat exactly or nearly: one
        /// outlier repetition would open a cell's band to a regression.
        package var spreadRepetitions = 3
        /// How far beyond its measured range, as a fraction of that range, a counter may move each way.
        package var spreadMargin = 0.5

        // MARK: - Judging two counted runs

        package init(
            cellInstructions: Double, storeInstructions: Double, allocationsPerOperation: Double, writes: Double
        ) {
            self.cellInstructions = cellInstructions
            self.storeInstructions = storeInstructions
            self.allocationsPerOperation = allocationsPerOperation
            self.writes = writes
        }

        /// From the committed counter baselines (results/counter-baseline, docs/regression-checks.md): repetitions
        /// on one host, and the same binary with glibc's string routines of another CPU.
        package static let measured = Bands(
            cellInstructions: 1.05, storeInstructions: 1.025, allocationsPerOperation: 0.5, writes: 1.01)
    }

    /// A band for a count that moves a little from run to run: a change is beyond `factor` either way and more
    /// than `floor` per operation, so that a count near zero does not flip on one event.
    package struct Band: Codable, Sendable, Equatable {
        package var factor: Double
        package var floor: Double
        /// A change must also be more than this many in the cell (its operations × the change per operation).
        package var perCell: Double?
        /// A change must also be more than this many for each flush per operation (the more of the two runs'):
        /// what a flush waits on is the disk's.
        package var perFlush: Double?

        package init(factor: Double, floor: Double, perCell: Double? = nil, perFlush: Double? = nil) {
            self.factor = factor
            self.floor = floor
            self.perCell = perCell
            self.perFlush = perFlush
        }

        func verdict(_ was: Double, _ now: Double, operations: Double, flushes: Double = 0) -> Verdict {
            let floor = max(floor, (perCell ?? 0) / max(operations, 1), (perFlush ?? 0) * flushes)
            if now > was * factor, now - was > floor { return .worse }
            if now < was / factor, was - now > floor { return .better }
            return .same
        }

        /// "×1.10 and 0.5", for a report.
        package func description(unit: String) -> String {
            String(format: "×%.2f and %g", factor, floor) + (unit.isEmpty ? "" : " " + unit)
                + (perCell.map { String(format: " (and %g a cell)", $0) } ?? "")
                + (perFlush.map { String(format: " (and %g a flush)", $0) } ?? "")
        }
    }

    // MARK: - Its parts

    /// One counter of one cell: medians over the repetitions of each run.
    package struct Change: Codable, Sendable {
        /// `instructions/op`, `allocations/op`, `flushes/op`, `write calls/op`, `bytes written/op`,
        /// `bytes on disk`, `digest` or `status`.
        package var metric: String
        package var baseline: String
        package var current: String
        /// Current ÷ baseline, where both are numbers and the baseline is not 0.
        package var ratio: Double?
        package var verdict: Verdict
        /// How the change was judged where it was not by the fixed band alone: the range a baseline's repetitions
        /// allow, or the store's reason to show it without judging it.
        package var note: String?
    }

    package struct Cell: Codable, Sendable {
        package var store: String
        package var workload: String
        package var scale: Scale
        package var changes: [Change]
        /// Instructions per operation, current ÷ baseline; nil where either run did not count them.
        package var instructionRatio: Double?
        package var verdict: Verdict { changes.map(\.verdict).max() ?? .same }
        package var series: SeriesID { SeriesID(store: store, workload: workload, scale: scale) }
    }

    /// Instructions over a set of cells: the geometric mean of their ratios.
    package struct Summary: Codable, Sendable {
        /// A store's name, or "every store".
        package var name: String
        package var cells: Int
        package var instructionRatio: Double
        package var verdict: Verdict
    }

    package var bands: Bands
    package var cells: [Cell]
    package var stores: [Summary]
    /// Every cell together: what the harness, the digest or the data every store is given did.
    package var overall: Summary?
    /// Cells in one run and not the other.
    package var notCompared: [String]
    /// Cells with no finished repetition in the baseline, and why: a regression, since nothing guards them.
    package var uncounted: [String]
    /// (workload, scale) groups whose stores disagree within the current run.
    package var digestDisagreements: [String]

    /// Per store, the counters its kind declares scheduling-dependent and why: shown, not judged.
    package var schedulingDependent: [String: [SchedulingDependentCounter: String]]
    /// Declarations the baseline's run did not record: regressions, until the baseline is made with them.
    package var newDeclarations: [String] = []

    /// Compares `current` to `baseline`; throws when they cannot be compared (a run that was not counted,
    /// different seeds).
    ///
    /// `schedulingDependent`: per store name, what its `StoreKind` declares.
    package init(
        baseline: RunResults, current: RunResults, bands: Bands = .measured,
        schedulingDependent: [String: [SchedulingDependentCounter: String]] = [:]
    ) throws {
        for (name, run) in [("baseline", baseline), ("current run", current)] where run.configuration.counted != true {
            throw BenchError("the \(name) was not counted (made without `run --count`): it has no counters to judge")
        }
        guard baseline.configuration.seed == current.configuration.seed else {
            throw BenchError(
                "the runs used different seeds (baseline \(baseline.configuration.seed), current "
                    + "\(current.configuration.seed)): their data and digests are not comparable")
        }
        self.bands = bands
        self.schedulingDependent = schedulingDependent.filter { !$0.value.isEmpty }
        let baseGroups = CellGroups.groups(baseline.cells, storeOrder: baseline.stores)
        let currentGroups = CellGroups.groups(current.cells, storeOrder: current.stores)
        cells = []
        notCompared = []
        uncounted = []
        for (key, baseCells) in baseGroups.ordered {
            switch Self.compare(
                key, base: baseCells, current: currentGroups.byKey[key], bands: bands,
                schedulingDependent: schedulingDependent[key.store] ?? [:])
            {
            case .notApplicable: continue
            case .notCompared(let line): notCompared.append(line)
            case .uncounted(let line): uncounted.append(line)
            case .compared(let cell): cells.append(cell)
            }
        }
        for (key, _) in currentGroups.ordered where baseGroups.byKey[key] == nil {
            notCompared.append("\(key): not in the baseline")
        }
        // A check that judged nothing must not pass: a baseline whose every cell failed under valgrind (its reasons
        // say why) or that shares no cell with the current run.
        guard !cells.isEmpty else {
            let reasons = Set(baseline.cells.compactMap(\.reason)).sorted().prefix(3).joined(separator: "; ")
            throw BenchError(
                "nothing to judge: no cell of the baseline (\(baseline.cells.count) cells) finished and is in the "
                    + "current run (\(current.cells.count) cells)"
                    + (reasons.isEmpty ? "" : "; the baseline's cells did not finish: \(reasons)")
                    + "; remake the baseline with `run --count` once its cells finish")
        }
        let compared = Set(cells.map(\.store))
        self.schedulingDependent = self.schedulingDependent.filter { compared.contains($0.key) }
        newDeclarations = Self.newDeclarations(self.schedulingDependent, since: baseline)
        (stores, overall) = Self.summaries(of: cells, band: bands.storeInstructions)
        digestDisagreements = current.digestChecks.filter { !$0.agreed }.map { "\($0.workload) at \($0.scale)" }
    }

    /// Each counter `declared` scheduling-dependent that the baseline's run judged, as a line saying so.
    private static func newDeclarations(
        _ declared: [String: [SchedulingDependentCounter: String]], since baseline: RunResults
    ) -> [String] {
        declared.sorted(by: { $0.key < $1.key }).flatMap { store, counters in
            counters.keys.sorted(by: { $0.rawValue < $1.rawValue }).filter { counter in
                baseline.environment.schedulingDependent?[store]?[counter.rawValue] == nil
            }.map { counter in
                "\(store): \(counter.rawValue) declared scheduling-dependent since the baseline, which judged it: "
                    + "make the baseline again with the declaration to stop judging it"
            }
        }
    }

    /// Instructions per store and over every store: the geometric means of the cells' ratios, judged by `band`.
    private static func summaries(of cells: [Cell], band: Double) -> (stores: [Summary], overall: Summary?) {
        let ratios = cells.compactMap { cell in cell.instructionRatio.map { (store: cell.store, ratio: $0) } }
        let summary = { (group: (key: String, count: Int, mean: Double)) in
            Summary(
                name: group.key, cells: group.count, instructionRatio: group.mean,
                verdict: Verdict(ratio: group.mean, band: band))
        }
        return (
            CellGroups.geometricMeans(ratios).map(summary),
            CellGroups.geometricMeans(ratios.map { ("every store", $0.ratio) }).first.map(summary)
        )
    }

    /// What one (store, workload, scale) of the baseline gives the check.
    private enum KeyOutcome {
        /// A store without the workload's capability, n/a in both runs: nothing to compare, nothing to say.
        case notApplicable
        case notCompared(String)
        case uncounted(String)
        case compared(Cell)
    }

    /// The baseline's cells of `key` beside the current run's (nil where it has none).
    private static func compare(
        _ key: SeriesID, base baseCells: [CellResult], current currentCells: [CellResult]?, bands: Bands,
        schedulingDependent: [SchedulingDependentCounter: String]
    ) -> KeyOutcome {
        let notApplicable = { (cells: [CellResult]) in cells.allSatisfy { $0.status == .notApplicable } }
        if notApplicable(baseCells), notApplicable(currentCells ?? []) { return .notApplicable }
        let baseFinished = baseCells.filter { $0.status == .ok }.compactMap(\.metrics)
        guard let currentCells else { return .notCompared("\(key): not in the current run") }
        guard !baseFinished.isEmpty else {
            let reasons = Set(baseCells.compactMap(\.reason)).sorted().joined(separator: "; ")
            return .uncounted("\(key): not counted in the baseline (\(reasons.isEmpty ? "not finished" : reasons))")
        }
        let currentFinished = currentCells.filter { $0.status == .ok }.compactMap(\.metrics)
        guard !currentFinished.isEmpty else {
            let reasons = Set(currentCells.compactMap(\.reason)).sorted().joined(separator: "; ")
            let status = Change(
                metric: "status", baseline: "ok", current: reasons.isEmpty ? "not finished" : reasons, ratio: nil,
                verdict: .worse)
            return .compared(
                Cell(
                    store: key.store, workload: key.workload, scale: key.scale, changes: [status],
                    instructionRatio: nil))
        }
        return .compared(
            cell(
                key, base: baseFinished, current: currentFinished, bands: bands,
                schedulingDependent: schedulingDependent))
    }

    // MARK: - Verdicts

    /// More is worse, less is better, with no band: a count the same code on the same data repeats exactly.
    static func strict(_ was: Double, _ now: Double) -> Verdict {
        now > was * (1 + 1e-9) ? .worse : now < was * (1 - 1e-9) ? .better : .same
    }
}
