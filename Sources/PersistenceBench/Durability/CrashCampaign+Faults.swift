import Foundation

// Faults: a write or sync made to fail under the writer; the store reports it or absorbs it.
extension CrashCampaign {
    /// Fails a seeded write or flush (ENOSPC or EIO, alternately) of a writer like the recorded one, then checks
    /// that the writer reported it or absorbed it without a crash or a hang, and that the store reopens with
    /// every transaction committed before the fault.
    func faults(_ kind: StoreKind, log: WriteLog) throws -> CrashSummary {
        var summary = CrashSummary(store: kind, check: .fault)
        summary.faultsReported = 0
        summary.faultsAbsorbed = 0
        let counts = log.writesAndFlushes
        var rng = SplitMix64(seed: configuration.seed, stream: .crashStates, index: 2)
        for trial in 1...configuration.faults {
            // Writes and flushes alternately; only flushes for a writer that makes no write calls (`lmdb+writemap`
            // writes through its map, and its msyncs are its flushes).
            let isWrite = (trial % 2 == 1 && counts.writes > 0) || counts.flushes == 0
            let code = (trial / 2) % 2 == 0 ? ENOSPC : EIO
            let at = 1 + Int(rng.below(UInt64(max(1, isWrite ? counts.writes : counts.flushes))))
            let fault = "\(isWrite ? "write" : "flush"):\(at):\(code)"
            let name = "fault \(trial) (\(isWrite ? "write" : "flush") \(at), \(code == ENOSPC ? "ENOSPC" : "EIO"))"
            try FileSystem.remove(store)
            try FileSystem.copyForCell(from: base, to: store)
            let job = crashJob(.write, kind: kind, directory: store, run: 0, transactions: configuration.transactions)
            let faultLog = work.appendingPathComponent("fault.log")
            let result = try child(job, environment: try recording(into: faultLog, fault: fault))
            if result.timedOut {
                summary.addBrokenTrial(name, "the writer hung: killed after \(Int(Self.childTimeoutSeconds)) s")
                continue
            }
            switch result.outcome.ending {
            case .signaled(let signal):
                summary.addBrokenTrial(name, "the writer crashed with signal \(signal)")
                continue
            case .exited(0):
                // Where the fault fell: after the last commit (the close, a checkpoint) a store may absorb it, since
                // nothing it promised depends on it; inside a transaction, a commit that returned despite a failed
                // write broke the promise, and despite a failed flush too, unless the store promises only a
                // committed prefix: its commits do not flush, and a failed flush of a checkpoint (which SQLite does
                // not report to the committer) can only cost commits it never promised to keep.
                let operations = try WriteLog(contentsOf: faultLog, directory: store.path).operations
                guard let faultIndex = operations.firstIndex(of: .fault) else {
                    // Not a trial: the writer made fewer calls than the recorded one.
                    summary.addExample("\(name): not reached (the writer made fewer calls)")
                    continue
                }
                let lastCommit = operations.lastIndex { if case .committed = $0 { true } else { false } } ?? 0
                if faultIndex < lastCommit, isWrite || kind.promise == .everyCommit {
                    summary.addBrokenTrial(name, "a commit returned after the fault, and the writer reported no error")
                    continue
                }
                summary.faultsAbsorbed? += 1
            case .exited:
                guard result.outcome.error != nil else {
                    summary.addBrokenTrial(name, "the writer failed without an error: \(result.failure)")
                    continue
                }
                summary.faultsReported? += 1
            }
            let (verdict, _) = try verify(kind, directory: store, run: 0, committed: result.outcome.progress ?? 0)
            summary.add(verdict, trial: name)
        }
        return summary
    }
}
