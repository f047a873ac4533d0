import Foundation

// Power loss: the writes a writer made, replayed up to a cut as a power cut leaves them.
extension CrashCampaign {
    /// Runs a writer of `transactions` commits under libWriteRecorder, on a copy of `base` (a store of `scale`
    /// items, or an empty directory: a store created by the writer), and returns its log.
    func record(
        _ kind: StoreKind, from base: URL? = nil, scale: Int? = nil, transactions: Int? = nil,
        continuation: CrashJob.Continuation? = nil
    ) throws -> WriteLog {
        try FileSystem.remove(store)
        try FileSystem.copyForCell(from: base ?? self.base, to: store)
        let job = crashJob(
            .write, kind: kind, directory: store, run: 0, transactions: transactions ?? configuration.transactions,
            scale: scale, continuation: continuation)
        let result = try child(job, environment: try recording(into: recordLog, fault: nil))
        guard case .exited(0) = result.outcome.ending else {
            throw BenchError("the recorded writer of \(kind.name) failed: \(result.failure)")
        }
        return try WriteLog(contentsOf: recordLog, directory: store.path)
    }

    func recording(into log: URL, fault: String?) throws -> [String] {
        guard let recorder else {
            throw BenchError(
                "the power-loss and fault checks need libWriteRecorder.so beside persistbench; build it with "
                    + "`swift build -c release --product WriteRecorder`")
        }
        return [
            "LD_PRELOAD=\(recorder)", "PB_RECORD_DIR=\(store.path)", "PB_RECORD_LOG=\(log.path)",
            "PB_RECORD_MARKER_FD=\(ProgressChannel.descriptor)",
        ] + (fault.map { ["PB_FAULT=\($0)"] } ?? [])
    }

    /// The power-loss check: crash states of the recorded writer on the fixture and, a quarter of them (at least
    /// one), of a writer that creates the store in an empty directory and commits the same number of
    /// transactions: states cut while the store's files and directories are being made.
    func powerLoss(_ kind: StoreKind, log: WriteLog, creation: WriteLog?) throws -> CrashSummary {
        var summary = CrashSummary(store: kind, check: .powerLoss)
        summary.newStoreStates = 0
        let total = configuration.powerLossStates
        let newStore = creation == nil ? 0 : max(1, total / 4)
        let sources = [
            (
                states: CrashStates(log: log, newFiles: configuration.newFiles), limit: total - newStore,
                base: base, scale: configuration.scale, name: ""
            ),
            (
                states: CrashStates(log: creation ?? WriteLog(operations: []), newFiles: configuration.newFiles),
                limit: newStore,
                base: emptyBase, scale: 0, name: "new store: "
            ),
        ]
        var reopen: [Double] = []
        var done = 0
        for source in sources where source.limit > 0 {
            for state in source.states.states(limit: source.limit, seed: configuration.seed) {
                try FileSystem.remove(store)
                try FileSystem.copyForCell(from: source.base, to: store)
                try source.states.materialize(state, in: store)
                let (verdict, seconds) = try verify(
                    kind, directory: store, run: 0, committed: state.committed, scale: source.scale)
                if let seconds { reopen.append(seconds) }
                summary.add(verdict, trial: source.name + state.label + ", \(state.committed) committed")
                if source.scale == 0 { summary.newStoreStates? += 1 }
                done += 1
                if done % 50 == 0 {
                    progress("\(kind.name): \(done)/\(total) power-loss states, \(summary.broken) broken")
                }
            }
        }
        progress(
            "\(kind.name): \(done) power-loss states (\(summary.newStoreStates ?? 0) of a new store), \(summary.broken) broken"
        )
        summary.setReopen(reopen)
        return summary
    }
}
