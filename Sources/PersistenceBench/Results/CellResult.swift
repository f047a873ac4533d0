import Foundation

/// One cell: a store running a workload at a scale, one repetition, in its own process.
package struct CellResult: Codable, Equatable, Sendable {
    package enum Status: String, Codable, Sendable {
        /// Finished; metrics and digest are present.
        case ok
        /// Did not finish: over its time or memory budget, or its process crashed. `reason` says which.
        case dnf
        /// The store or workload reported an error. `reason` holds it.
        case error
        /// The store cannot answer this workload (it lacks the capability).
        case notApplicable = "n/a"
    }

    /// Which cell: store, workload, scale and repetition (coded as those four keys).
    package var id: CellID
    package var status: Status
    package var reason: String?
    /// What the cell's process measured of itself; nil unless `status` is ok.
    package var metrics: CellMetrics?
    /// What the parent read with wait4 once the cell's process ended; nil for n/a cells.
    package var process: ProcessUsage?
    /// True for a cell whose process was stopped by a signal from outside the run (Ctrl-C, a kill, a closed
    /// session), not by a crash of its own nor by the run's budgets: `run --resume` runs it again.
    ///
    /// Nil otherwise.
    package var interrupted: Bool?
    /// The run's wall seconds this cell took: its process, the fixture loads it waited for, and the parent's own work
    /// around it (what `RunEstimate` extrapolates).
    ///
    /// Nil in results recorded before it was.
    package var runSeconds: Double?
    /// The seconds of the fixture load this cell waited for, within `runSeconds`: set on the first cell of a run (or
    /// of a resumed run) to use a (store, fixture, scale)'s fixture, nil on the others and in results recorded before.
    package var fixtureSeconds: Double?
    /// Where that fixture came from: loaded by this run or reused from the fixture cache, its bytes and how it was
    /// checked; set with `fixtureSeconds`, nil in results recorded before the cache.
    package var fixture: FixtureCache.Use?
    /// In a merged run (`merge`), the shard whose machine measured this cell (`RunResults.shards`); nil otherwise.
    package var shard: Int?
    /// The boot id of the machine that ran this cell (`RunEnvironment.bootID`): a run resumed on another machine
    /// holds cells of both (`RunResults.resumedOn`).
    ///
    /// Nil in results recorded before it was.
    package var bootID: String?

    /// How the reason of a cell killed at `run --memory-limit` begins.
    package static let killedAtMemoryLimit = "killed at the memory limit"

    /// The peak resident set that belongs to the cell's work: its timed phase's own where measured
    /// (`metrics.timedPeakRSSBytes`), else the whole process's (a DNF cell, or results from before it was
    /// recorded).
    package var peakRSSBytes: Int64? { metrics?.resources.timedPeakRSSBytes ?? process?.peakRSSBytes }

    package var store: String {
        get { id.store }
        set { id.series.store = newValue }
    }
    package var workload: String {
        get { id.workload }
        set { id.series.group.workload = newValue }
    }
    package var scale: Scale {
        get { id.scale }
        set { id.series.group.scale = newValue }
    }
    /// 1-based.
    package var repetition: Int {
        get { id.repetition }
        set { id.repetition = newValue }
    }
    package var series: SeriesID { id.series }
    package var group: GroupID { id.group }

    package init(
        _ id: CellID, status: Status, reason: String? = nil, metrics: CellMetrics? = nil, process: ProcessUsage? = nil
    ) {
        self.id = id
        self.status = status
        self.reason = reason
        self.metrics = metrics
        self.process = process
    }
}

extension CellResult {
    private enum CodingKeys: String, CodingKey {
        case status, reason, metrics, process, interrupted, runSeconds, fixtureSeconds, fixture, shard, bootID
    }

    // The id's four keys sit beside the cell's own, as they did before the id was typed.
    package init(from decoder: any Decoder) throws {
        id = try CellID(from: decoder)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        status = try c.decode(Status.self, forKey: .status)
        reason = try c.decodeIfPresent(String.self, forKey: .reason)
        metrics = try c.decodeIfPresent(CellMetrics.self, forKey: .metrics)
        process = try c.decodeIfPresent(ProcessUsage.self, forKey: .process)
        interrupted = try c.decodeIfPresent(Bool.self, forKey: .interrupted)
        runSeconds = try c.decodeIfPresent(Double.self, forKey: .runSeconds)
        fixtureSeconds = try c.decodeIfPresent(Double.self, forKey: .fixtureSeconds)
        fixture = try c.decodeIfPresent(FixtureCache.Use.self, forKey: .fixture)
        shard = try c.decodeIfPresent(Int.self, forKey: .shard)
        bootID = try c.decodeIfPresent(String.self, forKey: .bootID)
    }

    package func encode(to encoder: any Encoder) throws {
        try id.encode(to: encoder)
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(status, forKey: .status)
        try c.encodeIfPresent(reason, forKey: .reason)
        try c.encodeIfPresent(metrics, forKey: .metrics)
        try c.encodeIfPresent(process, forKey: .process)
        try c.encodeIfPresent(interrupted, forKey: .interrupted)
        try c.encodeIfPresent(runSeconds, forKey: .runSeconds)
        try c.encodeIfPresent(fixtureSeconds, forKey: .fixtureSeconds)
        try c.encodeIfPresent(fixture, forKey: .fixture)
        try c.encodeIfPresent(shard, forKey: .shard)
        try c.encodeIfPresent(bootID, forKey: .bootID)
    }
}

/// The cell process's resource use, from wait4's rusage.
package struct ProcessUsage: Codable, Equatable, Sendable {
    /// Wall seconds of the whole process: start-up, setup, timed phase, digest read-back.
    package var wallSeconds: Double
    package var userCPUSeconds: Double
    package var systemCPUSeconds: Double
    /// Peak resident set of the process (ru_maxrss).
    package var peakRSSBytes: Int64
    /// Under `run --memory-limit`: the most memory the kernel charged the cell's cgroup, page cache included (its
    /// files read or mapped as well as its heap).
    ///
    /// Nil otherwise.
    package var cappedPeakBytes: Int64?

    package init(wallSeconds: Double, userCPUSeconds: Double, systemCPUSeconds: Double, peakRSSBytes: Int64) {
        self.wallSeconds = wallSeconds
        self.userCPUSeconds = userCPUSeconds
        self.systemCPUSeconds = systemCPUSeconds
        self.peakRSSBytes = peakRSSBytes
    }
}

extension Sequence<CellResult> {
    /// The cells of one cell's id, series, group or store's workload, in their order: the one query reports ask.
    package func cells(of series: SeriesID) -> [CellResult] { filter { $0.series == series } }
    package func cells(of group: GroupID) -> [CellResult] { filter { $0.group == group } }
    package func cells(of work: StoreWorkload) -> [CellResult] {
        filter { $0.store == work.store && $0.workload == work.workload }
    }
    package func cell(_ id: CellID) -> CellResult? { first { $0.id == id } }
}
