import Foundation

/// What bounds a cell's time, and so which probe of the machine its time is divided by.
public enum TimeBound: String, Codable, Sendable, CaseIterable {
    /// CPU and memory: the cell spent less than `ComparisonRule.ioWaitShare` of its timed seconds off the CPU.
    /// Normalised by the CPU and memory loop (`Calibration.measure`).
    case cpu
    /// Waiting, in practice on durable writes (`fdatasync`): the cell spent at least `ComparisonRule.ioWaitShare`
    /// of its timed seconds off the CPU. Normalised by the fdatasync probe (`Calibration.measureSync`).
    case io

    /// A word for it in a table cell.
    public var shortLabel: String {
        switch self {
        case .cpu: "CPU"
        case .io: "wait"
        }
    }

    /// How the report names it.
    public var label: String {
        switch self {
        case .cpu: "CPU and memory"
        case .io: "waits (durable writes)"
        }
    }

    /// The probe whose ratio normalises cells of this bound.
    public var probe: String {
        switch self {
        case .cpu: "CPU and memory loop"
        case .io: "fdatasync probe"
        }
    }
}

/// The bands of one kind of cell.
public struct BoundBands: Codable, Sendable, Equatable {
    /// A cell's time ratio inside this factor either way is "same", however steady its repetitions were.
    public var cell: Double
    /// The typical store's change over cells of this bound, after the probe, inside this factor is "same".
    public var typical: Double

    public init(cell: Double, typical: Double) {
        self.cell = cell
        self.typical = typical
    }
}

/// The thresholds of a comparison. The README's "Regression checks" section states the rule these parametrise and
/// the measurements each band comes from.
public struct ComparisonRule: Codable, Sendable, Equatable {
    /// What this rule is for, as the summary names it.
    public var name: String
    /// Bands of cells bound by the CPU and memory.
    public var cpu: BoundBands
    /// Bands of cells bound by waits (durable writes).
    public var io: BoundBands
    /// The observed spread of a cell's repetitions (slowest ÷ fastest, in either run) raised to this power is
    /// its band, when that is wider than its bound's: on a log scale, the spread times this.
    public var spreadMultiplier: Double
    /// A store's geometric-mean time ratio over all its cells, each relative to its workload's typical store,
    /// inside this factor either way is "same".
    public var storeBand: Double
    /// A workload's typical store (over the stores that ran it), relative to its bound's typical store, inside
    /// this factor either way is "same": what a harness change to one workload, or a noisy minute on the machine
    /// while its cells ran back to back, does to every store's cell of it.
    public var workloadBand: Double
    /// A wait-bound cell's voluntary context switches per operation (its blocking `fdatasync`s and the like)
    /// inside this factor either way is "same": a counter, far steadier than time, that sees one more sync per
    /// commit where its time alone may not.
    public var waitsBand: Double
    /// Peak resident memory inside this factor either way is "same".
    public var memoryBand: Double
    /// Below this many stores with cells of a bound (or of one workload and bound) there is no typical store for it: its cells are judged on
    /// their calibrated ratios alone.
    public var minimumStoresForTypical: Int
    /// A cell off the CPU for at least this share of its timed seconds is bound by waits (`TimeBound.io`).
    public var ioWaitShare: Double

    public init(
        name: String, cpu: BoundBands, io: BoundBands, spreadMultiplier: Double, storeBand: Double,
        workloadBand: Double, waitsBand: Double, memoryBand: Double, minimumStoresForTypical: Int,
        ioWaitShare: Double
    ) {
        self.name = name
        self.cpu = cpu
        self.io = io
        self.spreadMultiplier = spreadMultiplier
        self.storeBand = storeBand
        self.workloadBand = workloadBand
        self.waitsBand = waitsBand
        self.memoryBand = memoryBand
        self.minimumStoresForTypical = minimumStoresForTypical
        self.ioWaitShare = ioWaitShare
    }

    public subscript(bound: TimeBound) -> BoundBands {
        switch bound {
        case .cpu: cpu
        case .io: io
        }
    }

    /// Baseline and current ran on the same machine, in the same boot (`RunEnvironment.bootID`): only the noise of
    /// a shared machine between runs. The README's "Regression checks" gives the runs each band comes from.
    public static let sameMachine = ComparisonRule(
        name: "the same machine", cpu: BoundBands(cell: 1.75, typical: 1.3), io: BoundBands(cell: 1.4, typical: 1.3),
        spreadMultiplier: 1.5, storeBand: 1.18, workloadBand: 1.8, waitsBand: 1.2, memoryBand: 1.25,
        minimumStoresForTypical: 3, ioWaitShare: 0.5)

    /// Baseline and current ran on different machines of one class (the same CPU model, cores and memory within
    /// 5 %): hosts of one class run single stores' CPU-bound code differently. What CI judges: its runner is never
    /// the machine that made the committed baseline. The README's "Regression checks" gives the runs each band
    /// comes from.
    public static let machineClass = ComparisonRule(
        name: "machines of one class", cpu: BoundBands(cell: 2.25, typical: 2.0),
        io: BoundBands(cell: 1.5, typical: 1.5), spreadMultiplier: 1.5, storeBand: 1.35, workloadBand: 1.8,
        waitsBand: 1.3, memoryBand: 1.25, minimumStoresForTypical: 3, ioWaitShare: 0.5)

    /// Baseline and current ran on machines of different classes: only what no difference between machines
    /// explains is a regression. No runs measured these; they are the one-class bands widened by judgement.
    public static let acrossMachineClasses = ComparisonRule(
        name: "machines of different classes", cpu: BoundBands(cell: 3.0, typical: 4.0),
        io: BoundBands(cell: 3.0, typical: 4.0), spreadMultiplier: 1.5, storeBand: 1.6, workloadBand: 2.5,
        waitsBand: 2.0, memoryBand: 1.5, minimumStoresForTypical: 3, ioWaitShare: 0.5)

    /// The rule for two runs' machines: `sameMachine` when they share a boot ID, `machineClass` when their CPU
    /// model and cores are the same and their memory within 5 %, else `acrossMachineClasses`.
    public static func choosing(baseline: RunEnvironment, current: RunEnvironment) -> ComparisonRule {
        if let boot = baseline.bootID, boot == current.bootID { return .sameMachine }
        let memory = Double(current.memoryBytes) / Double(max(baseline.memoryBytes, 1))
        let oneClass =
            baseline.cpuModel == current.cpuModel && baseline.cores == current.cores && memory > 0.95
            && memory < 1.05
        return oneClass ? .machineClass : .acrossMachineClasses
    }
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
