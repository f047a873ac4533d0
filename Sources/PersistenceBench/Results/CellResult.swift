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

    package var store: String
    package var workload: String
    package var scale: Scale
    /// 1-based.
    package var repetition: Int
    package var status: Status
    package var reason: String?
    /// What the cell's process measured of itself; nil unless `status` is ok.
    package var metrics: CellMetrics?
    /// What the parent read with wait4 once the cell's process ended; nil for n/a cells.
    package var process: ProcessUsage?
    /// True for a cell whose process was stopped by a signal from outside the run (Ctrl-C, a kill, a closed
    /// session), not by a crash of its own nor by the run's budgets: `run --resume` runs it again. Nil otherwise.
    package var interrupted: Bool?
    /// The run's wall seconds this cell took: its process, the fixture loads it waited for, and the parent's own work
    /// around it (what `RunEstimate` extrapolates). Nil in results recorded before it was.
    package var runSeconds: Double?
    /// The seconds of the fixture load this cell waited for, within `runSeconds`: set on the first cell of a run (or
    /// of a resumed run) to use a (store, fixture, scale)'s fixture, nil on the others and in results recorded before.
    package var fixtureSeconds: Double?
    /// In a merged run (`merge`), the shard whose machine measured this cell (`RunResults.shards`); nil otherwise.
    package var shard: Int?
    /// The boot id of the machine that ran this cell (`RunEnvironment.bootID`): a run resumed on another machine
    /// holds cells of both (`RunResults.resumedOn`). Nil in results recorded before it was.
    package var bootID: String?

    /// How the reason of a cell killed at `run --memory-limit` begins.
    package static let killedAtMemoryLimit = "killed at the memory limit"

    /// The peak resident set that belongs to the cell's work: its timed phase's own where measured
    /// (`metrics.timedPeakRSSBytes`), else the whole process's (a DNF cell, or results from before it was
    /// recorded).
    package var peakRSSBytes: Int64? { metrics?.timedPeakRSSBytes ?? process?.peakRSSBytes }

    package init(
        store: String, workload: String, scale: Scale, repetition: Int, status: Status, reason: String? = nil,
        metrics: CellMetrics? = nil, process: ProcessUsage? = nil
    ) {
        self.store = store
        self.workload = workload
        self.scale = scale
        self.repetition = repetition
        self.status = status
        self.reason = reason
        self.metrics = metrics
        self.process = process
    }
}

/// The timed phase of a cell, as its own process measured it.
public struct CellMetrics: Codable, Equatable, Sendable {
    /// Wall seconds of the timed parts only (no setup, loading, data generation or digest read-back).
    package var timedSeconds: Double
    /// Operations in the timed phase: records written, lookups, rows scanned or queries.
    package var operations: Int
    /// Per-operation latency, for workloads that time each operation (get, page, count-where, insert-each).
    package var latency: LatencySummary?
    /// Latency per kind of operation, for workloads that mix kinds (YCSB: `READ`, `UPDATE`, `INSERT`, `SCAN`,
    /// `READ-MODIFY-WRITE`); `latency` then covers all of them together.
    package var latencyByOperation: [String: LatencySummary]?
    /// Resident anonymous memory at the end of the timed phase (RssAnon).
    package var rssAnonBytes: Int64?
    /// Resident file-backed memory at the end of the timed phase (RssFile): mapped files show here.
    package var rssFileBytes: Int64?
    /// Bytes sent to storage during the timed phase (/proc/self/io write_bytes), where the kernel counts them.
    package var storageWriteBytes: Int64?
    /// Bytes fetched from storage during the timed phase (/proc/self/io read_bytes: reads and faults that missed
    /// the page cache, with the read-ahead around them), where the kernel counts them.
    package var storageReadBytes: Int64?
    /// Page faults of the timed phase (getrusage's `ru_minflt` and `ru_majflt`): minor ones found their page in
    /// memory (a mapped file's page in the page cache, a new heap page), major ones waited for storage. What a
    /// mapped store's first lookups after an open pay, which no instruction count includes.
    package var phaseMinorFaults: Int64?
    package var phaseMajorFaults: Int64?
    /// The peak resident set of the cell's process during the timed phase alone (`VmHWM`, reset as the phase
    /// starts: `ProcessStats.resetPeak`): not the open before it (`openPeakRSSBytes`: for `json`, decoding the whole
    /// file) nor the digest read-back after it. In results recorded before 2026-11-25 (no `baselineRSSBytes`), the
    /// peak since the process started.
    package var timedPeakRSSBytes: Int64?
    /// The process's resident memory before the store opened: the tool's own fixed size.
    package var baselineRSSBytes: Int64?
    /// The process's peak resident memory from its start through the store's open, before the timed phase.
    package var openPeakRSSBytes: Int64?
    /// The store's files after it was closed.
    package var bytesOnDisk: Int64
    public var digest: Digest
    /// Seconds of one round of the fixed CPU and memory loop (`Calibration`), timed in the cell's process after
    /// its timed phase: how fast the machine was, for comparisons between runs.
    package var calibrationSeconds: Double?
    /// Seconds of one durable 4 KiB append (`Calibration.measureSync`), timed in the cell's directory after its
    /// timed phase: how long this machine's storage takes to make a write durable.
    package var syncCalibrationSeconds: Double?
    /// Wall seconds from the start to the end of the timed phase, untimed generation between its parts included.
    package var phaseSeconds: Double?
    /// CPU seconds (user and system) the process used over the same span.
    package var phaseCPUSeconds: Double?
    /// Voluntary context switches over the same span: how often the cell waited (a blocking sync, a read that
    /// missed the page cache).
    package var phaseWaits: Int64?
    /// Seconds of the timed phase a changing workload spent bringing the store's files to what a reopen finds
    /// (`Store.settle`: a WAL checkpoint), included in `timedSeconds`. Nil where the workload changed nothing.
    package var settleSeconds: Double?
    /// True where the store answered the workload's count question from a count it maintains (O(1)) rather than
    /// by counting; nil elsewhere.
    package var maintainedCount: Bool?
    /// The timed phase in one-second windows (`Timeline`): operations done and p99 per window. Nil in results
    /// recorded before it was.
    package var timeline: [TimelineWindow]?
    /// `read-while-import`'s reader alone and during the import, and its import alone; nil for other workloads.
    package var readWhileImport: ReadWhileImportMetrics?
    /// `observe`'s and `observe-burst`'s notices, queries and observer CPU; nil for other workloads.
    package var observe: ObserveMetrics?
    /// `get-readers`' reads per level of readers, alone and beside its writer; nil for other workloads.
    package var readers: ReadersMetrics?
    /// `two-processes`' commits of both processes, their waits and losses, or the second's refusal; nil for other
    /// workloads.
    package var twoProcesses: TwoProcessesMetrics?
    /// `pinned-reader`'s file sizes over the import beside a held snapshot, and after its release and the settle;
    /// nil for other workloads.
    package var pinnedReader: PinnedReaderMetrics?
    /// True where the cell did fewer steps than its workload's own count: the time box (`--time-box`) set its
    /// group's count of steps (`TimeBox`), which every cell of the group did. Nil elsewhere.
    package var timeBoxed: Bool?
    /// For a loop of steps (`get`, `get-batch`, `page`, `insert-each`, `write-then-page`): the steps it did, the
    /// same in every cell of a (workload, scale) once the run has set the count (`TimeBox`). Nil elsewhere.
    package var steps: Int?
    /// For `count-where` and `count-range` when they asked more than one round: the first round apart
    /// (`CountRounds`). Nil elsewhere.
    package var firstRound: FirstRound?
    /// For a loop under a budget floor (`TimeBox.floor`): the digest of the first steps every cell of its group
    /// did, on which a cell that stopped short of the floor is checked against the others. Nil elsewhere.
    package var prefix: DigestPrefix?
    /// True where the loop stopped short of its budget floor on its own time (`TimeBox.floor`): it did its own
    /// count of steps, fewer than its group's. Nil elsewhere.
    package var stoppedShort: Bool?
    /// Where the store does other work than the rest for this workload, what it does (from `StoreKind.workNotes`):
    /// shown in its cells. Nil elsewhere.
    package var workNote: String?
    /// For a loop of steps: the timed seconds of the same loop against a store that does nothing (`HarnessFloor`),
    /// the harness's own part of `timedSeconds`. Nil elsewhere.
    package var harnessSeconds: Double?
    /// What the counted region (the timed phase and the digest read) did that no machine changes: instructions,
    /// allocations, flushes, write calls and bytes written; nil unless the cell was counted (`run --count`).
    package var counts: OperationCounts?

    /// The seconds per question of the rounds after the first, where the cell asked more than one.
    package var laterRoundsSecondsPerOperation: Double? {
        guard let firstRound, operations > firstRound.operations else { return nil }
        return (timedSeconds - firstRound.seconds) / Double(operations - firstRound.operations)
    }

    /// The harness's share of the timed seconds (0–1), where measured.
    package var harnessShare: Double? {
        guard let harnessSeconds, timedSeconds > 0 else { return nil }
        return min(1, harnessSeconds / timedSeconds)
    }

    /// What the timed phase's peak added to the process as it was before the store opened: the memory the store
    /// and its work needed. Nil where either was not measured.
    package var rssGrowthBytes: Int64? {
        guard let timedPeakRSSBytes, let baselineRSSBytes else { return nil }
        return max(0, timedPeakRSSBytes - baselineRSSBytes)
    }

    package var operationsPerSecond: Double { timedSeconds > 0 ? Double(operations) / timedSeconds : 0 }

    package init(
        timedSeconds: Double, operations: Int, latency: LatencySummary?,
        latencyByOperation: [String: LatencySummary]? = nil, rssAnonBytes: Int64?, rssFileBytes: Int64?,
        storageWriteBytes: Int64?, timedPeakRSSBytes: Int64? = nil, bytesOnDisk: Int64, digest: Digest,
        calibrationSeconds: Double? = nil, syncCalibrationSeconds: Double? = nil, phaseSeconds: Double? = nil,
        phaseCPUSeconds: Double? = nil, phaseWaits: Int64? = nil, settleSeconds: Double? = nil,
        maintainedCount: Bool? = nil, timeline: [TimelineWindow]? = nil,
        readWhileImport: ReadWhileImportMetrics? = nil, observe: ObserveMetrics? = nil, timeBoxed: Bool? = nil,
        steps: Int? = nil, baselineRSSBytes: Int64? = nil, openPeakRSSBytes: Int64? = nil, workNote: String? = nil,
        harnessSeconds: Double? = nil, counts: OperationCounts? = nil, storageReadBytes: Int64? = nil,
        phaseMinorFaults: Int64? = nil, phaseMajorFaults: Int64? = nil, firstRound: FirstRound? = nil,
        prefix: DigestPrefix? = nil, stoppedShort: Bool? = nil
    ) {
        self.firstRound = firstRound
        self.prefix = prefix
        self.stoppedShort = stoppedShort
        self.storageReadBytes = storageReadBytes
        self.phaseMinorFaults = phaseMinorFaults
        self.phaseMajorFaults = phaseMajorFaults
        self.harnessSeconds = harnessSeconds
        self.counts = counts
        self.baselineRSSBytes = baselineRSSBytes
        self.openPeakRSSBytes = openPeakRSSBytes
        self.workNote = workNote
        self.timeBoxed = timeBoxed
        self.steps = steps
        self.readWhileImport = readWhileImport
        self.observe = observe
        self.timedSeconds = timedSeconds
        self.operations = operations
        self.latency = latency
        self.latencyByOperation = latencyByOperation
        self.rssAnonBytes = rssAnonBytes
        self.rssFileBytes = rssFileBytes
        self.storageWriteBytes = storageWriteBytes
        self.timedPeakRSSBytes = timedPeakRSSBytes
        self.bytesOnDisk = bytesOnDisk
        self.digest = digest
        self.calibrationSeconds = calibrationSeconds
        self.syncCalibrationSeconds = syncCalibrationSeconds
        self.phaseSeconds = phaseSeconds
        self.phaseCPUSeconds = phaseCPUSeconds
        self.phaseWaits = phaseWaits
        self.settleSeconds = settleSeconds
        self.maintainedCount = maintainedCount
        self.timeline = timeline
    }

    enum CodingKeys: String, CodingKey {
        case timedSeconds, operations, operationsPerSecond, latency, latencyByOperation, rssAnonBytes, rssFileBytes,
            storageWriteBytes
        case timedPeakRSSBytes, bytesOnDisk, digest, calibrationSeconds, syncCalibrationSeconds, phaseSeconds,
            phaseCPUSeconds, phaseWaits, settleSeconds, maintainedCount, timeline, readWhileImport, observe, timeBoxed,
            steps, baselineRSSBytes, openPeakRSSBytes, rssGrowthBytes, workNote, harnessSeconds, counts
        case storageReadBytes, phaseMinorFaults, phaseMajorFaults, firstRound, prefix, stoppedShort, readers,
            twoProcesses, pinnedReader
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            timedSeconds: try c.decode(Double.self, forKey: .timedSeconds),
            operations: try c.decode(Int.self, forKey: .operations),
            latency: try c.decodeIfPresent(LatencySummary.self, forKey: .latency),
            latencyByOperation: try c.decodeIfPresent([String: LatencySummary].self, forKey: .latencyByOperation),
            rssAnonBytes: try c.decodeIfPresent(Int64.self, forKey: .rssAnonBytes),
            rssFileBytes: try c.decodeIfPresent(Int64.self, forKey: .rssFileBytes),
            storageWriteBytes: try c.decodeIfPresent(Int64.self, forKey: .storageWriteBytes),
            timedPeakRSSBytes: try c.decodeIfPresent(Int64.self, forKey: .timedPeakRSSBytes),
            bytesOnDisk: try c.decode(Int64.self, forKey: .bytesOnDisk),
            digest: try c.decode(Digest.self, forKey: .digest),
            calibrationSeconds: try c.decodeIfPresent(Double.self, forKey: .calibrationSeconds),
            syncCalibrationSeconds: try c.decodeIfPresent(Double.self, forKey: .syncCalibrationSeconds),
            phaseSeconds: try c.decodeIfPresent(Double.self, forKey: .phaseSeconds),
            phaseCPUSeconds: try c.decodeIfPresent(Double.self, forKey: .phaseCPUSeconds),
            phaseWaits: try c.decodeIfPresent(Int64.self, forKey: .phaseWaits),
            settleSeconds: try c.decodeIfPresent(Double.self, forKey: .settleSeconds),
            maintainedCount: try c.decodeIfPresent(Bool.self, forKey: .maintainedCount),
            timeline: try c.decodeIfPresent([TimelineWindow].self, forKey: .timeline),
            readWhileImport: try c.decodeIfPresent(ReadWhileImportMetrics.self, forKey: .readWhileImport),
            observe: try c.decodeIfPresent(ObserveMetrics.self, forKey: .observe),
            timeBoxed: try c.decodeIfPresent(Bool.self, forKey: .timeBoxed),
            steps: try c.decodeIfPresent(Int.self, forKey: .steps),
            baselineRSSBytes: try c.decodeIfPresent(Int64.self, forKey: .baselineRSSBytes),
            openPeakRSSBytes: try c.decodeIfPresent(Int64.self, forKey: .openPeakRSSBytes),
            workNote: try c.decodeIfPresent(String.self, forKey: .workNote),
            harnessSeconds: try c.decodeIfPresent(Double.self, forKey: .harnessSeconds),
            counts: try c.decodeIfPresent(OperationCounts.self, forKey: .counts),
            storageReadBytes: try c.decodeIfPresent(Int64.self, forKey: .storageReadBytes),
            phaseMinorFaults: try c.decodeIfPresent(Int64.self, forKey: .phaseMinorFaults),
            phaseMajorFaults: try c.decodeIfPresent(Int64.self, forKey: .phaseMajorFaults),
            firstRound: try c.decodeIfPresent(FirstRound.self, forKey: .firstRound),
            prefix: try c.decodeIfPresent(DigestPrefix.self, forKey: .prefix),
            stoppedShort: try c.decodeIfPresent(Bool.self, forKey: .stoppedShort))
        readers = try c.decodeIfPresent(ReadersMetrics.self, forKey: .readers)
        twoProcesses = try c.decodeIfPresent(TwoProcessesMetrics.self, forKey: .twoProcesses)
        pinnedReader = try c.decodeIfPresent(PinnedReaderMetrics.self, forKey: .pinnedReader)
    }

    // ops/s and the memory growth are written out too, so that readers of results.json need not derive them.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(timedSeconds, forKey: .timedSeconds)
        try c.encode(operations, forKey: .operations)
        try c.encode(operationsPerSecond, forKey: .operationsPerSecond)
        try c.encodeIfPresent(latency, forKey: .latency)
        try c.encodeIfPresent(latencyByOperation, forKey: .latencyByOperation)
        try c.encodeIfPresent(rssAnonBytes, forKey: .rssAnonBytes)
        try c.encodeIfPresent(rssFileBytes, forKey: .rssFileBytes)
        try c.encodeIfPresent(storageWriteBytes, forKey: .storageWriteBytes)
        try c.encodeIfPresent(storageReadBytes, forKey: .storageReadBytes)
        try c.encodeIfPresent(phaseMinorFaults, forKey: .phaseMinorFaults)
        try c.encodeIfPresent(phaseMajorFaults, forKey: .phaseMajorFaults)
        try c.encodeIfPresent(timedPeakRSSBytes, forKey: .timedPeakRSSBytes)
        try c.encode(bytesOnDisk, forKey: .bytesOnDisk)
        try c.encode(digest, forKey: .digest)
        try c.encodeIfPresent(calibrationSeconds, forKey: .calibrationSeconds)
        try c.encodeIfPresent(syncCalibrationSeconds, forKey: .syncCalibrationSeconds)
        try c.encodeIfPresent(phaseSeconds, forKey: .phaseSeconds)
        try c.encodeIfPresent(phaseCPUSeconds, forKey: .phaseCPUSeconds)
        try c.encodeIfPresent(phaseWaits, forKey: .phaseWaits)
        try c.encodeIfPresent(settleSeconds, forKey: .settleSeconds)
        try c.encodeIfPresent(maintainedCount, forKey: .maintainedCount)
        try c.encodeIfPresent(timeline, forKey: .timeline)
        try c.encodeIfPresent(readWhileImport, forKey: .readWhileImport)
        try c.encodeIfPresent(observe, forKey: .observe)
        try c.encodeIfPresent(readers, forKey: .readers)
        try c.encodeIfPresent(twoProcesses, forKey: .twoProcesses)
        try c.encodeIfPresent(pinnedReader, forKey: .pinnedReader)
        try c.encodeIfPresent(timeBoxed, forKey: .timeBoxed)
        try c.encodeIfPresent(steps, forKey: .steps)
        try c.encodeIfPresent(firstRound, forKey: .firstRound)
        try c.encodeIfPresent(prefix, forKey: .prefix)
        try c.encodeIfPresent(stoppedShort, forKey: .stoppedShort)
        try c.encodeIfPresent(baselineRSSBytes, forKey: .baselineRSSBytes)
        try c.encodeIfPresent(openPeakRSSBytes, forKey: .openPeakRSSBytes)
        try c.encodeIfPresent(rssGrowthBytes, forKey: .rssGrowthBytes)
        try c.encodeIfPresent(workNote, forKey: .workNote)
        try c.encodeIfPresent(harnessSeconds, forKey: .harnessSeconds)
        try c.encodeIfPresent(counts, forKey: .counts)
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
    /// files read or mapped as well as its heap). Nil otherwise.
    package var cappedPeakBytes: Int64?

    package init(wallSeconds: Double, userCPUSeconds: Double, systemCPUSeconds: Double, peakRSSBytes: Int64) {
        self.wallSeconds = wallSeconds
        self.userCPUSeconds = userCPUSeconds
        self.systemCPUSeconds = systemCPUSeconds
        self.peakRSSBytes = peakRSSBytes
    }
}
