/// `engine-insert`: `insert`'s N items in `insert`'s batches, each written in one transaction through the store's
/// engine's C API alone (`EngineFloorStore`), from records encoded before the timer: the floor `insert` is held
/// against.
///
/// Its digest reads back what it left, as `insert`'s does.
package struct EngineInsertWorkload: ItemWorkload {
    package init() {}
    package let name = "engine-insert"
    package let summary =
        "the engine's insert floor: insert's batches through the engine's C API alone, records encoded untimed"
    package var fixture: Fixture? { nil }
    package var report: WorkloadReport { WorkloadReport(measuresMachine: true) }

    package var capability: StoreCapability { .engineFloor }

    package func run(on store: any ItemStore, context: WorkloadContext) throws -> WorkloadOutcome {
        let engine = try requireCapability(store, (any EngineFloorStore).self, for: "workload \(name)")
        try ItemBatches.forEachBatch(of: 1...Int64(context.scale), context: context) { batch in
            let records = try engine.engineRecords(batch)
            try context.stopwatch.measure { try engine.engineInsert(records) }
            context.progress.advance(by: batch.count)
        }
        return WorkloadOutcome(operations: context.scale, digest: nil)
    }
}

/// `engine-get`: `get`'s keys, each looked up through the store's engine's C API alone (`EngineFloorStore`), its
/// record's bytes touched, not decoded: the floor `get` is held against.
///
/// Its digest holds the ids read back.
package struct EngineGetWorkload: ItemWorkload {
    package init() {}
    package let name = "engine-get"
    package let summary = "the engine's lookup floor: get's keys through the engine's C API alone, bytes not decoded"
    package var fixture: Fixture? { .items }
    package var report: WorkloadReport { WorkloadReport(measuresMachine: true) }

    package var capability: StoreCapability { .engineFloor }

    package func run(on store: any ItemStore, context: WorkloadContext) throws -> WorkloadOutcome {
        let engine = try requireCapability(store, (any EngineFloorStore).self, for: "workload \(name)")
        let keys = GetWorkload.keys(scale: context.scale, seed: context.seed, distribution: .uniform)
        return try context.askInTurn(keys, ask: engine.engineLookUp) { id, digest in
            digest.add(Int(id ?? -1))
            return 1
        }
    }
}
