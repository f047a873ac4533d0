import Foundation

extension CounterComparison {
    /// One cell's counters per operation, bytes on disk and digest.
    static func cell(
        _ key: SeriesID, base: [CellMetrics], current: [CellMetrics], bands: Bands,
        schedulingDependent: [SchedulingDependentCounter: String] = [:]
    ) -> Cell {
        var comparer = CellComparer(
            base: base, current: current, bands: bands, schedulingDependent: schedulingDependent)
        let instructions = comparer.compareWork()
        comparer.compareSystem()
        comparer.compareFiles()
        return Cell(
            store: key.store, workload: key.workload, scale: key.scale, changes: comparer.changes,
            instructionRatio: instructions)
    }
}

/// One cell's repetitions in a baseline and now, compared counter by counter into `changes`.
private struct CellComparer {
    typealias Change = CounterComparison.Change

    let base: [CellMetrics]
    let current: [CellMetrics]
    let bands: CounterComparison.Bands
    let schedulingDependent: [SchedulingDependentCounter: String]
    /// The cell's operations, for a band's count per cell: the fewer of the two runs'.
    let operations: Double
    var changes: [Change] = []

    init(
        base: [CellMetrics], current: [CellMetrics], bands: CounterComparison.Bands,
        schedulingDependent: [SchedulingDependentCounter: String]
    ) {
        (self.base, self.current, self.bands, self.schedulingDependent) = (base, current, bands, schedulingDependent)
        operations = Double(
            min(base.map(\.phase.operations).min() ?? 0, current.map(\.phase.operations).min() ?? 0))
    }

    /// A counter per operation in each of a run's repetitions that counted it.
    func repetitions(_ metrics: [CellMetrics], _ counter: (OperationCounts) -> UInt64?) -> [Double] {
        metrics.compactMap { cell in
            cell.counts.flatMap(counter).map { Double($0) / Double(max(cell.phase.operations, 1)) }
        }
    }

    /// The median over a run's repetitions of a counter per operation; nil where none counted it.
    func perOperation(_ metrics: [CellMetrics], _ counter: (OperationCounts) -> UInt64?) -> Double? {
        median(repetitions(metrics, counter))
    }

    /// Compares one counter per operation and adds its change; returns its ratio, current ÷ baseline.
    ///
    /// `banded`: the counter moves from run to run, so a baseline's spread widens its band. `declared`: the store
    /// may declare it scheduling-dependent.
    @discardableResult
    mutating func compare(
        _ metric: String, _ counter: (OperationCounts) -> UInt64?, format: (Double) -> String,
        banded: Bool = false, declared: SchedulingDependentCounter? = nil,
        verdict: (Double, Double) -> Verdict
    ) -> Double? {
        guard let was = perOperation(base, counter), let now = perOperation(current, counter) else { return nil }
        let ratio = was > 0 ? now / was : nil
        var change = Change(
            metric: metric, baseline: format(was), current: format(now), ratio: ratio, verdict: verdict(was, now))
        if let declared, let reason = schedulingDependent[declared] {
            change.verdict = .same
            change.note = "shown, not judged: " + reason
        } else if banded, let spread = CounterComparison.Spread(repetitions(base, counter), bands: bands),
            spread.judge(change.verdict, now: now) != change.verdict
        {
            change.verdict = .same
            change.note = spread.note(format, margin: bands.spreadMargin)
        }
        changes.append(change)
        return ratio
    }

    /// Compares what the code does (instructions, allocations, flushes and writes); returns the instructions' ratio.
    mutating func compareWork() -> Double? {
        let bands = bands
        let instructions = compare(
            "instructions/op", \.instructions, format: { String(format: "%.0f", $0) },
            verdict: { was, now in was > 0 ? Verdict(ratio: now / was, band: bands.cellInstructions) : .same })
        compare(
            "allocations/op", \.allocations, format: { String(format: "%.2f", $0) }, declared: .allocations,
            verdict: { was, now in
                now - was > bands.allocationsPerOperation
                    ? .worse : was - now > bands.allocationsPerOperation ? .better : .same
            })
        // Flushes are what a durable store promises with: one more, or one fewer, is a change of promise.
        compare(
            "flushes/op", \.syncs, format: { String(format: "%.4f", $0) },
            verdict: { was, now in CounterComparison.strict(was, now) })
        for (metric, counter) in [
            ("write calls/op", \OperationCounts.writeCalls), ("bytes written/op", \OperationCounts.bytesWritten),
        ] {
            compare(
                metric, { $0[keyPath: counter] }, format: { String(format: "%.2f", $0) },
                verdict: { was, now in
                    was > 0 ? Verdict(ratio: now / was, band: bands.writes) : now > 0 ? .worse : .same
                })
        }
        return instructions
    }

    /// What instructions do not count: system calls, faults, reads from storage, waits
    /// (docs/regression-checks.md).
    mutating func compareSystem() {
        let bands = bands
        let operations = operations
        let flushes = max(perOperation(base, \.syncs) ?? 0, perOperation(current, \.syncs) ?? 0)
        // A baseline counted before the allocator's calls were apart holds them in its system calls: so do both.
        let allocatorApart = base.contains { $0.counts?.allocatorSystemCalls != nil }
        compare(
            "system calls/op",
            { counts in
                counts.systemCalls.map { $0 + (allocatorApart ? 0 : counts.allocatorSystemCalls ?? 0) }
            }, format: { String(format: "%.2f", $0) }, banded: true, declared: .systemCalls,
            verdict: { bands.systemCalls.verdict($0, $1, operations: operations, flushes: flushes) })
        // A cell starts with its files in the page cache, but a machine short of memory may evict them before the
        // timed phase: reading them back once, and waiting once a page for it, is the machine's, not the store's
        // (CI's count of `sqlite+fts page 2k` beside its tests read 496 KB of its 823 KB files, 27 waits, in 50 pages).
        let files = Double((base + current).map(\.resources.bytesOnDisk).max() ?? 0)
        var reads = bands.bytesReadFromStorage
        reads.perCell = max(reads.perCell ?? 0, files)
        var waits = bands.voluntarySwitches
        let readInCell = (perOperation(current, \.bytesReadFromStorage) ?? 0) * operations
        waits.perCell = max(waits.perCell ?? 0, min(readInCell, files) / 4096)
        let others: [(String, KeyPath<OperationCounts, UInt64?>, CounterComparison.Band, SchedulingDependentCounter?)] =
            [
                ("minor faults/op", \.minorFaults, bands.minorFaults, .minorFaults),
                ("major faults/op", \.majorFaults, bands.majorFaults, nil),
                ("bytes read from storage/op", \.bytesReadFromStorage, reads, nil),
                ("voluntary waits/op", \.voluntarySwitches, waits, .voluntaryWaits),
            ]
        for (metric, counter, band, declared) in others {
            compare(
                metric, { $0[keyPath: counter] }, format: { String(format: "%.2f", $0) }, banded: true,
                declared: declared, verdict: { band.verdict($0, $1, operations: operations, flushes: flushes) })
        }
        // The allocator's system calls are shown, not judged: where a heap grows follows everything allocated before
        // it, paths and environment included (OperationCounts.allocatorSystemCalls); allocations are judged above.
        compare(
            "allocator's system calls/op", \.allocatorSystemCalls, format: { String(format: "%.2f", $0) },
            verdict: { _, _ in .same })
        // The time system calls waited is shown, not judged: a time, which a busy machine's preemptions inside calls
        // moved ×50–×3,400 (docs/regression-checks.md); what waits is judged by its count (system calls, waits).
        compare(
            "µs waiting/op", { $0.systemCallWaitNanoseconds.map { $0 / 1000 } }, format: { String(format: "%.1f", $0) },
            verdict: { _, _ in .same })
    }

    /// The same operations on the same data leave the same bytes, and read the same answers.
    mutating func compareFiles() {
        let baseBytes = base.map(\.resources.bytesOnDisk).max() ?? 0
        let currentBytes = current.map(\.resources.bytesOnDisk).max() ?? 0
        changes.append(
            Change(
                metric: "bytes on disk", baseline: "\(baseBytes)", current: "\(currentBytes)",
                ratio: Double(currentBytes) / Double(max(baseBytes, 1)),
                verdict: CounterComparison.strict(Double(baseBytes), Double(currentBytes))))
        let baseDigests = Set(base.map(\.digest))
        let currentDigests = Set(current.map(\.digest))
        changes.append(
            Change(
                metric: "digest", baseline: baseDigests.map(\.description).sorted().joined(separator: "/"),
                current: currentDigests.map(\.description).sorted().joined(separator: "/"), ratio: nil,
                verdict: baseDigests == currentDigests && currentDigests.count == 1 ? .same : .worse))
    }
}
