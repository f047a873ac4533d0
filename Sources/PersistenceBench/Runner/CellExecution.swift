import Foundation

/// The child side of a cell (`ChildExecution`): one job in this process.
public enum CellExecution {
    /// Runs `job`, sending the records done on `progress`: the cell's metrics, or nil for a fixture's load.
    static func run(_ job: CellJob, stores: [StoreKind], progress channel: ProgressChannel?) throws -> CellMetrics? {
        let kind = try ChildExecution.kind(named: job.store, in: stores)
        guard let workload = WorkloadCatalog.workload(named: job.workload, shape: job.parameters.shape) else {
            throw BenchError("no workload \(job.workload)")
        }
        let progress = ProgressReporter { done in channel?.send(done) }
        var context = WorkloadContext(parameters: job.parameters, stopwatch: Stopwatch(), progress: progress)
        context.executable = try? Executable.path()
        context.checksAnswers = !OperationCounter.isCounting
        let directory = URL(fileURLWithPath: job.directory)
        switch job.mode {
        case .loadFixture:
            try loadFixture(
                of: workload, into: kind, at: directory, context: context, buildCacheBytes: job.buildCacheBytes)
            return nil
        case .measure:
            var metrics = try measure(workload, on: kind, at: directory, context: context)
            // The machine's probes time it: a counted cell (under callgrind) has no time worth judging.
            if metrics.counts == nil {
                metrics.phase.calibrationSeconds = Calibration.measure()
                metrics.phase.syncCalibrationSeconds = try Calibration.measureSync(in: directory)
            }
            return metrics
        }
    }

    /// Loads `workload`'s fixture into a new store of `kind` in `directory` and closes it (untimed setup).
    ///
    /// With `buildCacheBytes` (a run's fixtures), a `FastBuildingStore` loads it with its build's settings (no sync
    /// until the end, a page cache of up to that many bytes), which leave the same files; without (a crash check's,
    /// an answer's trace), every store with its everyday settings.
    public static func loadFixture(
        of workload: any Workload, into kind: StoreKind, at directory: URL, context: WorkloadContext,
        buildCacheBytes: Int? = nil
    ) throws {
        guard let fixture = workload.fixture else { throw BenchError("workload \(workload.name) has no fixture") }
        let store = try kind.open(directory)
        let building = buildCacheBytes == nil ? nil : store as? any FastBuildingStore
        if let building, let buildCacheBytes { try building.startBuild(cacheBytes: buildCacheBytes) }
        try fixture.load(store, context)
        // Its files as a reopen finds them, whichever connection closes last (GRDB's pool leaves its log to a reader
        // it closes last, which cannot checkpoint): a cell starts from a database, not a log to read through.
        try store.settle()
        try building?.finishBuild()
        try store.close()
    }

    /// One cell in this process: opens the store of `kind` in `directory`, runs `workload`'s timed phase, reads
    /// its digest and closes the store.
    ///
    /// `begin` and `end` bracket the timed phase and nothing else, for a harness that measures around it
    /// (package-benchmark's start/stopMeasurement).
    public static func measure(
        _ workload: any Workload, on kind: StoreKind, at directory: URL, context: WorkloadContext,
        begin: () -> Void = {}, end: () -> Void = {}
    ) throws -> CellMetrics {
        var context = context
        context.directory = directory
        let store: any Store
        let outcome: WorkloadOutcome
        let baseline = ProcessStats.current()
        let before: ProcessStats
        var peakReset = false
        // A counted cell keeps no timeline: its windows go by the clock, so the slower callgrind ran (the busier
        // the host), the more windows (a histogram each) it would count.
        let timeline = OperationCounter.isCounting ? nil : Timeline()
        /// Starts the timeline, or the counted region where the process counts one, with the timed phase.
        func startTimeline() {
            OperationCounter.begin()
            guard let timeline else { return }
            timeline.start = monotonicNanoseconds()
            context.stopwatch.timeline = timeline
            context.progress.timeline = timeline
        }
        instantiateOnce(workload, on: kind)
        if let opening = workload as? any OpeningWorkload {
            before = baseline
            peakReset = ProcessStats.resetPeak()
            startTimeline()
            begin()
            (outcome, store) = try opening.run(opening: kind, at: directory, context: context)
        } else {
            store = try kind.open(directory)
            try workload.prepare(store, context: context)
            before = ProcessStats.current()
            peakReset = ProcessStats.resetPeak()
            startTimeline()
            begin()
            outcome = try workload.run(on: store, context: context)
        }
        // A workload that changed the store pays for bringing its files to what a reopen finds (a WAL checkpoint),
        // inside the timed phase, rather than leaving it to the untimed close.
        let settleSeconds = outcome.changedStore ? try settle(store, timedBy: context.stopwatch) : nil
        end()
        // The process's figures after the phase, read from /proc: the harness's work, left out of a counted region.
        let after = OperationCounter.paused { ProcessStats.current() }
        let (digest, prefix) = try answers(of: outcome, by: workload, in: store, scale: context.scale)
        let counts = OperationCounter.end()
        try store.close()
        let harnessSeconds = try HarnessFloor.seconds(
            of: workload, steps: outcome.steps, timedAlone: outcome.stepsTimedAlone, context: context)
        let phase = PhaseFigures(
            context.stopwatch, outcome: outcome, from: before, to: after, settleSeconds: settleSeconds,
            timeline: timeline, harnessSeconds: harnessSeconds)
        let resources = ResourceFigures(
            from: before, to: after, baseline: peakReset ? baseline : nil,
            bytesOnDisk: try kind.type.bytesOnDisk(at: directory))
        return CellMetrics(
            phase: phase, resources: resources,
            verification: CellVerification(outcome, digest: digest, prefix: prefix, of: workload, on: kind),
            counts: counts, figures: outcome.figures)
    }

    /// The Swift runtime's one-time work a timed phase's first question would otherwise time (and, counted, count),
    /// done before it.
    ///
    /// Its first check of a type's conformance to a protocol scans every conformance record in the binary (285k
    /// instructions, about 0.1 ms, with 27 stores) and caches the answer: the workload's check of the store's
    /// capability is made here, so that the phase, whose first question casts the store, finds it cached. Its first
    /// instantiation of the outcome's types (10-19k instructions) is the harness's, made here too.
    private static func instantiateOnce(_ workload: any Workload, on kind: StoreKind) {
        _ = workload.supports(kind.type)
        WorkloadOutcome.instantiateTypes(figures: nil)
    }

    /// Brings the store's files to what a reopen finds, timed by `stopwatch`; its seconds.
    private static func settle(_ store: any Store, timedBy stopwatch: Stopwatch) throws -> Double {
        let timedBefore = stopwatch.elapsedNanoseconds
        try stopwatch.measure { try store.settle() }
        return seconds(nanoseconds: stopwatch.elapsedNanoseconds - timedBefore)
    }

    /// What the cell answered, read inside the counted region: the outcome's digest or the store's read back (or
    /// both), and the digest of the prefix every cell of its group did where the outcome has none.
    private static func answers(
        of outcome: WorkloadOutcome, by workload: any Workload, in store: any Store, scale: Int
    ) throws -> (digest: Digest, prefix: DigestPrefix?) {
        var digest = try outcome.digest ?? workload.digestAfterRun(of: store)
        if outcome.digest != nil && outcome.alsoDigestsStore { digest.add(try workload.digestAfterRun(of: store)) }
        var prefix = outcome.prefix
        if let steps = prefix?.steps, prefix?.digest == nil {
            prefix?.digest = try workload.prefixDigestAfterRun(of: store, scale: scale, steps: steps)
        }
        return (digest, prefix)
    }
}

extension PhaseFigures {
    /// A timed phase's figures: the stopwatch's, the outcome's and the process's between `before` and `after`.
    fileprivate init(
        _ stopwatch: Stopwatch, outcome: WorkloadOutcome, from before: ProcessStats, to after: ProcessStats,
        settleSeconds: Double?, timeline: Timeline?, harnessSeconds: Double?
    ) {
        self.init(
            timedSeconds: stopwatch.elapsedSeconds, operations: outcome.operations, latency: stopwatch.latencySummary,
            latencyByOperation: stopwatch.latencySummaryByKind,
            phaseSeconds: seconds(nanoseconds: after.monotonicNanoseconds - before.monotonicNanoseconds),
            phaseCPUSeconds: after.cpuSeconds - before.cpuSeconds,
            phaseWaits: after.voluntaryContextSwitches - before.voluntaryContextSwitches, settleSeconds: settleSeconds,
            timeline: timeline?.windows, firstRound: outcome.firstRound, harnessSeconds: harnessSeconds)
    }
}

extension ResourceFigures {
    /// The process's memory, faults and storage I/O over a phase, from `before` to `after`.
    ///
    /// `baseline`: the process at the cell's start, where its peak was reset at the phase's start; without the reset
    /// the peak is the process's since its start, with no baseline to subtract from it.
    fileprivate init(from before: ProcessStats, to after: ProcessStats, baseline: ProcessStats?, bytesOnDisk: Int64) {
        self.init(
            rssAnonBytes: after.rssAnonBytes, rssFileBytes: after.rssFileBytes, timedPeakRSSBytes: after.peakRSSBytes,
            baselineRSSBytes: baseline?.residentBytes, openPeakRSSBytes: baseline == nil ? nil : before.peakRSSBytes,
            phaseMinorFaults: after.minorFaults - before.minorFaults,
            phaseMajorFaults: after.majorFaults - before.majorFaults,
            storageWriteBytes: after.storageWriteBytes.flatMap { end in before.storageWriteBytes.map { end - $0 } },
            storageReadBytes: after.storageReadBytes.flatMap { end in before.storageReadBytes.map { end - $0 } },
            bytesOnDisk: bytesOnDisk)
    }
}

extension CellVerification {
    /// What the cell answered and how its loop ended, with the store's notes on the workload.
    ///
    /// Made after the counted region: a store's maintained counts are a static property its conformance answers
    /// (478k instructions the first time, for `memory`), no part of the cell's work.
    fileprivate init(
        _ outcome: WorkloadOutcome, digest: Digest, prefix: DigestPrefix?, of workload: any Workload, on kind: StoreKind
    ) {
        self.init(
            digest: digest, steps: outcome.steps, timeBoxed: outcome.timeBoxed ? true : nil,
            stoppedShort: outcome.stoppedShort ? true : nil, prefix: prefix,
            maintainedCount: workload.countAsked.map(kind.type.maintainedCounts.contains) == true ? true : nil,
            workNote: kind.workNotes[workload.name])
    }
}
