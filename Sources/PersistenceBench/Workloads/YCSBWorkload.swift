/// YCSB's core workloads A–F (Cooper et al., "Benchmarking Cloud Serving Systems with YCSB", and the
/// `workloads/workload[a-f]` files of the YCSB distribution), with `Item` as the record and its id as the key.
///
/// Load phase: the items fixture (1...N), untimed. Run phase: min(N, 100,000) operations, each a single-record
/// operation in its own transaction as a YCSB client issues them (writes durable before they return), each
/// timed into its kind's latency histogram under YCSB's names. The operation sequence is drawn from the seed
/// before the timed phase, so every store runs the same one. The digest holds every answer (items read and
/// scanned, in order) and, after the timed phase, every item the store then holds: what the writes left.
package struct YCSBWorkload: ItemWorkload, KeyedWorkload {
    package enum Letter: String, CaseIterable, Sendable {
        case a, b, c, d, e, f
    }

    /// The request distribution YCSB's workload file names.
    enum Distribution {
        /// YCSB's scrambled zipfian, constant 0.99, over the records (loaded and inserted): `ScrambledZipfianGenerator`.
        case zipfian
        /// YCSB's `latest`: the newest record is the most popular (`SkewedLatestGenerator`).
        case latest
    }

    /// Proportions of each operation kind, as YCSB's `readproportion`, `updateproportion`, … (they sum to 1).
    struct Mix {
        var read = 0.0
        var update = 0.0
        var insert = 0.0
        var scan = 0.0
        var readModifyWrite = 0.0
        var distribution = Distribution.zipfian
    }

    /// One operation of the run phase.
    enum Operation: Equatable {
        case read(Int64)
        case update(Int64)
        case insert(Int64)
        case scan(Int64, length: Int)
        case readModifyWrite(Int64)

        /// YCSB's name for the operation, as its reports print it.
        var kind: OperationKind {
            switch self {
            case .read: .read
            case .update: .update
            case .insert: .insert
            case .scan: .scan
            case .readModifyWrite: .readModifyWrite
            }
        }
    }

    /// YCSB's `maxscanlength` in workload E; scan lengths are uniform over 1...this (`scanlengthdistribution`).
    static let maxScanLength = 100

    package let letter: Letter

    package init(_ letter: Letter) { self.letter = letter }

    package var name: String { "ycsb-\(letter.rawValue)" }

    package var summary: String {
        let operations = "min(N, 100k) operations, one transaction each"
        switch letter {
        case .a: return "YCSB A, update heavy: 50% reads, 50% updates, zipfian keys; \(operations)"
        case .b: return "YCSB B, read mostly: 95% reads, 5% updates, zipfian keys; \(operations)"
        case .c: return "YCSB C, read only: 100% reads, zipfian keys; \(operations)"
        case .d: return "YCSB D, read latest: 95% reads, 5% inserts, latest keys; \(operations)"
        case .e: return "YCSB E, short ranges: 95% scans of 1–100 items, 5% inserts, zipfian starts; \(operations)"
        case .f: return "YCSB F, read-modify-write: 50% reads, 50% read-modify-writes, zipfian keys; \(operations)"
        }
    }

    package var fixture: Fixture? { .items }
    /// Each of YCSB's kinds timed apart, as YCSB's reports show them.
    package var report: WorkloadReport {
        WorkloadReport(operationKinds: [.read, .update, .insert, .scan, .readModifyWrite])
    }

    var mix: Mix {
        switch letter {
        case .a: Mix(read: 0.5, update: 0.5)
        case .b: Mix(read: 0.95, update: 0.05)
        case .c: Mix(read: 1)
        case .d: Mix(read: 0.95, insert: 0.05, distribution: .latest)
        case .e: Mix(insert: 0.05, scan: 0.95)
        case .f: Mix(read: 0.5, readModifyWrite: 0.5)
        }
    }

    package var skewedKeys: Bool { true }

    package func keyTrace(scale: Int, seed: UInt64) -> [KeyDraw] {
        Self.operations(mix, records: scale, count: WorkloadContext.questions(scale: scale), seed: seed).map {
            operation in
            switch operation {
            case .read(let id), .update(let id), .readModifyWrite(let id):
                KeyDraw(line: "\(operation.kind) \(id)", drawn: id)
            case .insert(let id): KeyDraw(line: "INSERT \(id)", drawn: nil)
            case .scan(let id, let length): KeyDraw(line: "SCAN \(id) \(length)", drawn: id)
            }
        }
    }

    package func run(on store: any ItemStore, context: WorkloadContext) throws -> WorkloadOutcome {
        let operations = Self.operations(
            mix, records: context.scale, count: WorkloadContext.questions(scale: context.scale), seed: context.seed)
        let generator = context.items
        let stopwatch = context.stopwatch
        var answers = Digest()
        func answer(_ item: Item?) {
            if let item { answers.add(item) } else { answers.add(-1) }
        }
        // Every operation, whatever the clock: a timed run does them all. Only a step count set by the run (a
        // counted run's `CountingLauncher.steps`) stops the loop sooner.
        var box = TimeBox(seconds: nil, stepLimit: context.timeBox.stepLimit).start(steps: operations.count)
        var done = 0
        for (index, operation) in operations.enumerated() {
            guard box.allowsMore(after: index) else { break }
            done = index + 1
            switch operation {
            case .read(let id):
                answer(try stopwatch.measureOperation(operation.kind) { try store.item(id: id) })
            case .update(let id):
                let update = generator.update(id: id, revision: index)
                try stopwatch.measureOperation(operation.kind) { try store.update([update]) }
            case .insert(let id):
                let item = generator.items(id...id)[0]
                try stopwatch.measureOperation(operation.kind) { try store.insertDurably(item) }
            case .scan(let id, let length):
                let items = try stopwatch.measureOperation(operation.kind) {
                    try store.items(startingAt: id, limit: length)
                }
                answers.add(items.count)
                for item in items { answers.add(item) }
            case .readModifyWrite(let id):
                // YCSB times the read and the write together; the new values do not depend on what was read.
                let update = generator.update(id: id, revision: index)
                let item = try stopwatch.measureOperation(operation.kind) {
                    let item = try store.item(id: id)
                    try store.update([update])
                    return item
                }
                answer(item)
            }
            context.progress.advance(by: 1)
        }
        return WorkloadOutcome(
            operations: done, digest: answers, alsoDigestsStore: mix.read + mix.scan < 1,
            timeBoxed: box.stoppedEarly(after: done), steps: done)
    }

    /// The run phase's operations, drawn from the seed: each kind with its proportion, keys from the mix's
    /// distribution over the records there are when the operation runs (inserts add N+1, N+2, …).
    static func operations(_ mix: Mix, records: Int, count: Int, seed: UInt64) -> [Operation] {
        var rng = SplitMix64(seed: seed, stream: .ycsbOperations, index: 0)
        // Ids are YCSB's key numbers plus one: the records are 1...N, YCSB's keys 0...N-1.
        var lastID = Int64(records)
        // CoreWorkload.java:484–486: the zipfian chooser spans the records and twice the expected inserts
        // (`insertstart + insertcount + expectednewkeys`, inclusive), and a key not inserted yet is drawn again
        // (line 697).
        let expectedInserts = Int(Double(count) * mix.insert * 2)
        let zipfian = ScrambledZipfianGenerator(count: records + expectedInserts + 1)
        // Line 488: `latest` is a SkewedLatestGenerator over the acknowledged inserts, whose newest key is N - 1.
        var latest = SkewedLatestGenerator(newestKey: records - 1)
        func key() -> Int64 {
            switch mix.distribution {
            case .zipfian:
                while true {
                    let id = 1 + Int64(zipfian.next(using: &rng))
                    if id <= lastID { return id }
                }
            case .latest:
                return 1 + Int64(latest.next(newestKey: Int(lastID) - 1, using: &rng))
            }
        }
        // The kinds in YCSB's order with their proportions; a draw past the last threshold (rounding) takes the
        // last kind that has a proportion.
        let everyKind: [(proportion: Double, make: () -> Operation)] = [
            (mix.read, { .read(key()) }),
            (mix.update, { .update(key()) }),
            (
                mix.insert,
                {
                    lastID += 1
                    return .insert(lastID)
                }
            ),
            (mix.scan, { .scan(key(), length: 1 + Int(rng.below(UInt64(maxScanLength)))) }),
            (mix.readModifyWrite, { .readModifyWrite(key()) }),
        ]
        let kinds = everyKind.filter { $0.proportion > 0 }
        var operations: [Operation] = []
        operations.reserveCapacity(count)
        for _ in 0..<count {
            var choice = rng.unit()
            var chosen = kinds[kinds.count - 1]
            for kind in kinds {
                if choice < kind.proportion {
                    chosen = kind
                    break
                }
                choice -= kind.proportion
            }
            operations.append(chosen.make())
        }
        return operations
    }
}
