import Foundation

// Corruption: bytes of a closed store damaged; the store reports it or reads around it.
extension CrashCampaign {
    /// Damages a copy of the closed store: a seeded byte XORed with a nonzero value (four cases in five) or a file
    /// cut short; half the flips at a byte drawn over all the files' bytes (most land in the big files), half in a
    /// file drawn first (small files, headers and metadata, get their share).
    ///
    /// Then reopens it in a fresh process: detected (an error), harmless (every answer right), silently wrong, crashed
    /// or hung.
    func corruptions(_ kind: StoreKind) throws -> CrashSummary {
        var summary = CrashSummary(store: kind, check: .corruption)
        summary.crashes = 0
        summary.hangs = 0
        let files = try damageableFiles()
        guard !files.isEmpty else { throw BenchError("\(kind.name) left no files to damage") }
        let total = files.reduce(0) { $0 + $1.size }
        var rng = SplitMix64(seed: configuration.seed, stream: .crashStates, index: 3)
        for trial in 1...configuration.corruptions {
            try FileSystem.remove(store)
            try FileSystem.copyForCell(from: base, to: store)
            let damage = try damageStore(files: files, total: total, rng: &rng)
            let job = crashJob(.verify, kind: kind, directory: store, run: 0, committed: 0)
            let result = try child(job, environment: [])
            if result.timedOut {
                summary.trials += 1
                summary.hangs? += 1
                summary.addExample("\(damage): the reopen hung")
            } else if case .signaled(let signal) = result.outcome.ending {
                summary.trials += 1
                summary.crashes? += 1
                // Crashes lead the examples: they are the cases to fix.
                summary.examples.insert("\(damage): the reopen crashed (signal \(signal))", at: 0)
                summary.examples = Array(summary.examples.prefix(5))
            } else if case .crash(let verdict?, _) = result.outcome.reply {
                summary.add(verdict, trial: damage)
                if verdict.outcome == .torn {
                    summary.addExample("\(damage): silently wrong (\(verdict.problem ?? ""))")
                }
            } else {
                throw BenchError("verifying \(kind.name) failed: \(result.failure)")
            }
            if trial % 100 == 0 || trial == configuration.corruptions {
                progress("\(kind.name): \(trial)/\(configuration.corruptions) corruptions")
            }
        }
        return summary
    }

    /// The closed store's files, by path under it, with their sizes; empty files left out.
    private func damageableFiles() throws -> [(path: String, size: Int)] {
        try FileManager.default.subpathsOfDirectory(atPath: base.path).sorted().compactMap {
            path -> (path: String, size: Int)? in
            let attributes = try FileManager.default.attributesOfItem(atPath: base.appendingPathComponent(path).path)
            guard attributes[.type] as? FileAttributeType == .typeRegular,
                let size = (attributes[.size] as? NSNumber)?.intValue, size > 0
            else { return nil }
            return (path, size)
        }
    }

    /// Damages the store's copy of one of `files` (`total` bytes in all) as `rng` draws, and says what it did.
    private func damageStore(files: [(path: String, size: Int)], total: Int, rng: inout SplitMix64) throws -> String {
        if rng.below(5) == 0 {
            let file = files[Int(rng.below(UInt64(files.count)))]
            let length = Int(rng.below(UInt64(file.size)))
            guard truncate(store.appendingPathComponent(file.path).path, off_t(length)) == 0 else {
                throw BenchError.system("truncating \(file.path)")
            }
            return "\(file.path) cut to \(length) of \(file.size) bytes"
        }
        var file = files[0]
        var offset: Int
        if rng.below(2) == 0 {
            offset = Int(rng.below(UInt64(total)))
            for candidate in files {
                file = candidate
                if offset < candidate.size { break }
                offset -= candidate.size
            }
        } else {
            file = files[Int(rng.below(UInt64(files.count)))]
            offset = Int(rng.below(UInt64(file.size)))
        }
        let mask = UInt8(1 + rng.below(255))
        let path = store.appendingPathComponent(file.path).path
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        try handle.seek(toOffset: UInt64(offset))
        let byte = try handle.read(upToCount: 1)?.first ?? 0
        try handle.seek(toOffset: UInt64(offset))
        try handle.write(contentsOf: [byte ^ mask])
        try handle.close()
        return "\(file.path) byte \(offset) XOR \(mask)"
    }
}
