/// `insert`, `insert-each`, `get`, `scan`, `update` and `page` over records of a shape (`run --shape`): the same
/// questions, batch sizes and counts as the item workloads of those names, asked of the store's `RecordTable`.
///
/// Where the shape has a payload (a text or blob of up to more than 1 KB: `RecordShape.payloadIndex`), `get` and
/// `insert-each` time every record alone and put its latency under its payload's size class too (`SizeClasses`: the
/// payload's quartiles),
/// so that a report shows where keeping large values inline stops paying.
package struct ShapedWorkload: Workload {
    package enum Operation: String, CaseIterable, Sendable {
        case insert, insertEach = "insert-each", get, scan, update, page
    }

    package let operation: Operation
    package let shape: RecordShape

    package init(_ operation: Operation, shape: RecordShape) {
        self.operation = operation
        self.shape = shape
    }

    /// The workload a run of `shape` asks by `name`, or nil for a name only items answer.
    package static func named(_ name: String, shape: RecordShape) -> ShapedWorkload? {
        Operation(rawValue: name).map { ShapedWorkload($0, shape: shape) }
    }

    package var name: String { operation.rawValue }

    package var summary: String {
        switch operation {
        case .insert: "bulk-load N records of the shape into an empty store, one transaction per batch"
        case .insertEach: "add min(N, 10k) records to a store of N, one durable (fsynced) commit each"
        case .get: "min(N, 100k) lookups by primary key, keys uniform over 1...N"
        case .scan: "iterate all N records as typed values, in id order"
        case .update: "change one seeded field of a seeded 10% of records, batched"
        case .page: "1,000 pages of 20: filter on the shape's filter field, sort by its sort field, then id"
        }
    }

    package var fixture: Fixture? {
        switch operation {
        case .insert: nil
        default: .records(of: shape)
        }
    }

    /// The item workload's declarations, with the size classes of a shape that has a payload.
    package var report: WorkloadReport {
        var report = WorkloadCatalog.workload(named: name)?.report ?? WorkloadReport()
        report.machineLimit = nil
        report.engineFloor = nil
        if let classes = SizeClasses(shape), let kind = bucketedKind { report.operationKinds = classes.kinds(kind) }
        return report
    }

    /// The prefix of the size classes' operation kinds: `GET 10 KB–31.6 KB`.
    private var bucketedKind: String? {
        switch operation {
        case .get: "GET"
        case .insertEach: "INSERT"
        default: nil
        }
    }

    package var capability: StoreCapability { .records }

    package func run(on store: any Store, context: WorkloadContext) throws -> WorkloadOutcome {
        let table = try Self.table(of: shape, in: store, for: name)
        let generator = RecordGenerator(shape: shape, seed: context.seed)
        let context = context.with(batchSize: shape.recordsPerBatch(context.batchSize))
        // The size classes' kinds, made once: a kind is a string, not to be formatted at every operation.
        let sizeClasses = bucketedKind.flatMap { kind in SizeClasses(shape).map { ($0, $0.kinds(kind)) } }
        switch operation {
        case .insert:
            try Self.insert(
                ids: 1...Int64(context.scale), of: shape, into: table, of: store, context: context, timed: true)
            return WorkloadOutcome(operations: context.scale, digest: nil)
        case .insertEach:
            return try insertEach(into: table, generator: generator, sizeClasses: sizeClasses, context: context)
        case .get:
            return try get(from: table, generator: generator, sizeClasses: sizeClasses, context: context)
        case .scan:
            var digest = Digest()
            let progress = context.progress
            try context.stopwatch.measure {
                try table.forEachRecord { record in
                    digest.add(record)
                    if digest.count & 0x3FF == 0 { progress.advance(by: 0x400) }
                }
            }
            return WorkloadOutcome(operations: digest.count, digest: digest)
        case .update:
            var operations = 0
            try ItemBatches.forEachBatchOfTenPercent(context: context, stream: .updateSelection) { ids in
                let changes = ids.map(generator.update(id:))
                try context.stopwatch.measure { try table.update(changes) }
                operations += changes.count
                context.progress.advance(by: changes.count)
            }
            return WorkloadOutcome(operations: operations, digest: nil)
        case .page:
            return try context.askInTurn(generator.pageQueries(count: PageWorkload.queryCount), ask: table.page) {
                page, digest in
                var answer = Digest()
                for record in page { answer.add(record) }
                digest.add(answer)
                return 1
            }
        }
    }

    /// `insert-each`: records after the fixture's, one durable insert each, within the time box.
    private func insertEach(
        into table: any RecordTable, generator: RecordGenerator, sizeClasses: SizeClassKinds?, context: WorkloadContext
    ) throws -> WorkloadOutcome {
        var box = context.timeBox.start(steps: min(context.scale, 10_000))
        var done = 0
        while box.allowsMore(after: done) {
            let id = Int64(context.scale + done + 1)
            let record = generator.record(id: id)
            try measure(generator, id: id, sizeClasses: sizeClasses, context: context) {
                try table.insertDurably(record)
            }
            context.progress.advance(by: 1)
            done += 1
        }
        return WorkloadOutcome(
            operations: done, digest: nil, timeBoxed: box.stoppedEarly(after: done), steps: done,
            prefix: context.timeBox.floor == nil ? nil : DigestPrefix(steps: box.minimum, digest: nil),
            stoppedShort: box.stoppedShort(after: done))
    }

    /// `get`: uniform lookups by id, timed in turn; with a payload, each timed alone under its size class.
    private func get(
        from table: any RecordTable, generator: RecordGenerator, sizeClasses: SizeClassKinds?, context: WorkloadContext
    ) throws -> WorkloadOutcome {
        let keys = GetWorkload.keys(scale: context.scale, seed: context.seed, distribution: .uniform)
        guard shape.payloadIndex != nil else {
            return try context.askInTurn(keys, ask: table.record(id:)) { record, digest in
                digest.add(answer: record)
                return 1
            }
        }
        var box = context.timeBox.start(steps: keys.count)
        var digest = Digest()
        var prefix: Digest?
        var done = 0
        while box.allowsMore(after: done) {
            let key = keys[done]
            digest.add(
                answer: try measure(generator, id: key, sizeClasses: sizeClasses, context: context) {
                    try table.record(id: key)
                })
            done += 1
            if done == box.minimum { prefix = digest }
            context.progress.advance(by: 1)
        }
        return WorkloadOutcome(
            operations: done, digest: digest, timeBoxed: box.stoppedEarly(after: done), steps: done,
            prefix: context.timeBox.floor == nil
                ? nil : prefix.map { DigestPrefix(steps: box.minimum, digest: $0) },
            stoppedShort: box.stoppedShort(after: done), stepsTimedAlone: done)
    }

    /// The size classes of a shape's payload and their operation kinds.
    private typealias SizeClassKinds = (sizes: SizeClasses, kinds: [OperationKind])

    /// Times `body` as one operation, under the size class of record `id`'s payload when the shape has one.
    private func measure<T>(
        _ generator: RecordGenerator, id: Int64, sizeClasses: SizeClassKinds?,
        context: WorkloadContext, _ body: () throws -> T
    ) rethrows -> T {
        guard let classes = sizeClasses else { return try context.stopwatch.measureOperation(body) }
        return try context.stopwatch.measureOperation(
            classes.kinds[classes.sizes.index(bytes: generator.payloadBytes(id: id))], body)
    }

    /// Every record in id order: proves that inserts and updates left the same data in every store.
    package func digestAfterRun(of store: any Store) throws -> Digest {
        var digest = Digest()
        try Self.table(of: shape, in: store, for: name).forEachRecord { digest.add($0) }
        return digest
    }

    /// The records with an id up to `scale + steps`: what a store held after `insert-each`'s first `steps`.
    package func prefixDigestAfterRun(of store: any Store, scale: Int, steps: Int) throws -> Digest? {
        guard operation == .insertEach else { return nil }
        var digest = Digest()
        let last = Int64(scale + steps)
        try Self.table(of: shape, in: store, for: name).forEachRecord { if $0.id <= last { digest.add($0) } }
        return digest
    }

    static func table(of shape: RecordShape, in store: any Store, for workload: String) throws -> any RecordTable {
        try requireCapability(store, (any RecordStore).self, for: "workload \(workload) of shape \(shape.name)")
            .records(of: shape)
    }

    /// Generates records batch by batch (untimed) and inserts each batch (timed, if `timed`), then ends the load.
    static func insert(
        ids: ClosedRange<Int64>, of shape: RecordShape, into table: any RecordTable, of store: any Store,
        context: WorkloadContext, timed: Bool
    ) throws {
        let generator = RecordGenerator(shape: shape, seed: context.seed)
        try Batches.forEach(ids, size: context.batchSize) { range in
            let batch = generator.records(range)
            if timed { try context.stopwatch.measure { try table.insert(batch) } } else { try table.insert(batch) }
            context.progress.advance(by: batch.count)
        }
        if timed { try context.stopwatch.measure { try store.finishInserting() } } else { try store.finishInserting() }
    }
}

extension Fixture {
    /// Records 1...scale of `shape`, inserted in transactions of `batchSize`, fewer for large records
    /// (`RecordShape.recordsPerBatch`).
    package static func records(of shape: RecordShape) -> Fixture {
        Fixture(name: shape.fixtureName) { store, context in
            try ShapedWorkload.insert(
                ids: 1...Int64(context.scale), of: shape,
                into: ShapedWorkload.table(of: shape, in: store, for: "the fixture"), of: store,
                context: context.with(batchSize: shape.recordsPerBatch(context.batchSize)), timed: false)
        }
    }
}
