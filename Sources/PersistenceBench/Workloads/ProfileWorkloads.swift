/// A workload over a time profile: the store must be a `ProfileStore`.
protocol ProfileWorkload: Workload {
    func run(on store: any ProfileStore, context: WorkloadContext) throws -> WorkloadOutcome
}

extension ProfileWorkload {
    package var capability: StoreCapability { .profiles }

    package func run(on store: any Store, context: WorkloadContext) throws -> WorkloadOutcome {
        try run(on: requireCapability(store, (any ProfileStore).self, for: "workload \(name)"), context: context)
    }

    /// Every sample, all frames, in time order.
    package func digestAfterRun(of store: any Store) throws -> Digest {
        var digest = Digest()
        try requireCapability(store, (any ProfileStore).self, for: "workload \(name)").forEachSample {
            digest.add($0)
        }
        return digest
    }
}

enum ProfileBatches {
    /// Generates samples 0..<scale batch by batch (untimed) and inserts each batch (timed when `timed`).
    static func ingest(into store: any ProfileStore, context: WorkloadContext, timed: Bool) throws {
        let generator = SampleGenerator(seed: context.seed)
        var start: Int64 = 0
        while start < Int64(context.scale) {
            let end = min(Int64(context.scale), start + Int64(context.batchSize))
            let batch = generator.samples(start..<end)
            if timed {
                try context.stopwatch.measure { try store.insert(samples: batch) }
            } else {
                try store.insert(samples: batch)
            }
            context.progress.advance(by: batch.count)
            start = end
        }
        if timed {
            try context.stopwatch.measure { try store.finishInserting() }
        } else {
            try store.finishInserting()
        }
    }
}

/// `profile-ingest`: a profiler writing its samples, batch by batch, each stack stored once.
package struct ProfileIngestWorkload: ProfileWorkload {
    package init() {}
    package let name = "profile-ingest"
    package let summary = "ingest N profile samples (stacks of 5–120 frames from 4,096 distinct ones), batched"
    package var fixture: Fixture? { nil }

    package func run(on store: any ProfileStore, context: WorkloadContext) throws -> WorkloadOutcome {
        try ProfileBatches.ingest(into: store, context: context, timed: true)
        return WorkloadOutcome(operations: context.scale, digest: nil)
    }
}

/// `profile-window`: what a profiler's UI does when the user selects a time range: seek to a timestamp, then the
/// 20 most frequent leaf frames of the next min(N, 100k) samples; 10 windows at seeded times.
package struct ProfileWindowWorkload: ProfileWorkload {
    package init() {}
    package let name = "profile-window"
    package let summary = "10 windows: seek to a time, top 20 leaf frames of the next min(N, 100k) samples"
    package var fixture: Fixture? { .samples }

    package static let windows = 10
    package static let windowSamples = 100_000
    package static let topFrames = 20

    package func run(on store: any ProfileStore, context: WorkloadContext) throws -> WorkloadOutcome {
        let count = min(context.scale, Self.windowSamples)
        // Starts before the last `count` samples' times, so that every window holds `count` samples.
        let span = UInt64(context.scale - count) * UInt64(SampleGenerator.interval) + 1
        var digest = Digest()
        for window in 0..<Self.windows {
            var rng = SplitMix64(seed: context.seed, stream: .profileWindows, index: UInt64(window))
            let start = Int64(rng.below(span))
            let top = try context.stopwatch.measure {
                try store.topLeafFrames(from: start, samples: count, limit: Self.topFrames)
            }
            digest.add(top.count)
            for frame in top { digest.add(frame) }
            context.progress.advance(by: count)
        }
        return WorkloadOutcome(operations: Self.windows * count, digest: digest)
    }
}
