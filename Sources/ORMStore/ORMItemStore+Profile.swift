import Foundation
import PersistenceBench
import SQLiteSupport

/// The time profile done the object-graph way: a sample object per sample pointing at its `CallStack`, windows
/// fetched in timestamp order a page at a time.
extension ObjectGraphStore {
    /// Inserts a sample object per sample, each pointing at its `CallStack` (fetched for the batch, or inserted
    /// when new).
    package func insert(samples: [Sample]) throws {
        let stacks = try loadedStacks()
        var missing: [Int64] = []
        let objects = samples.map { sample in
            let (id, isNew) = stacks.interner.id(of: sample.callStack)
            if isNew {
                let stack = Model.CallStack(context: context)
                stack.id = id
                stack.leaf = Int64(bitPattern: sample.leafFrame)
                stack.frames = sample.callStack
                stacks.objects[id] = stack
            } else if stacks.objects[id] == nil {
                missing.append(id)
            }
            return id
        }
        // Stacks saved by an earlier batch whose objects a reset let go.
        if !missing.isEmpty {
            for stack in try context.fetch(
                FetchDescriptor<Model.CallStack>(predicate: Model.CallStack.id.isIn(missing)))
            {
                stacks.objects[stack.id] = stack
            }
        }
        for (sample, id) in zip(samples, objects) {
            let object = Model.Sample(context: context)
            object.timestamp = sample.timestamp
            object.pid = Int64(sample.pid)
            object.tid = Int64(sample.tid)
            object.stack = stacks.objects[id]
        }
        try endBatch()
    }

    /// Fetches the window's samples (sorted, limited) and counts their stacks' leaves: one fault per distinct
    /// stack, or one prefetch query.
    package func topLeafFrames(from timestamp: Int64, samples count: Int, limit: Int) throws -> [FrameCount] {
        let samples = try context.fetch(
            FetchDescriptor<Model.Sample>(
                predicate: Model.Sample.timestamp >= timestamp, sortBy: [FetchSortDescriptor(Model.Sample.timestamp)],
                fetchLimit: count, relationshipKeyPathsForPrefetching: prefetchesRelationships ? ["stack"] : []))
        var counts: [UInt64: Int] = [:]
        for sample in samples {
            guard let stack = sample.stack else { throw ORMError.validation("sample \(sample.timestamp)", "stack") }
            counts[UInt64(bitPattern: stack.leaf), default: 0] += 1
        }
        return FrameCount.top(limit, of: counts)
    }

    /// Pages of 100,000 samples, the context reset after each, so that reading a large profile back holds one
    /// page of objects.
    package func forEachSample(_ body: (Sample) throws -> Void) throws {
        var last = Int64.min
        while true {
            let page = try context.fetch(
                FetchDescriptor<Model.Sample>(
                    predicate: Model.Sample.timestamp > last, sortBy: [FetchSortDescriptor(Model.Sample.timestamp)],
                    fetchLimit: 100_000, relationshipKeyPathsForPrefetching: ["stack"]))
            for sample in page {
                try body(
                    Sample(
                        timestamp: sample.timestamp, pid: Int32(sample.pid), tid: Int32(sample.tid),
                        callStack: sample.stack?.frames ?? []))
            }
            guard let final = page.last else { return }
            last = final.timestamp
            resetContext()
        }
    }

    func loadedStacks() throws -> ProfileStacks {
        if let profileStacks { return profileStacks }
        let stacks = ProfileStacks()
        for stack in try context.fetch(FetchDescriptor<Model.CallStack>()) {
            stacks.interner.register(stack.frames, id: stack.id)
        }
        profileStacks = stacks
        return stacks
    }
}

/// The profile's distinct stacks: their ids, and the objects of those the context holds (unsaved ones cannot be
/// fetched, so the store keeps them until a save and reset).
final class ProfileStacks {
    let interner = StackInterner()
    var objects: [Int64: Model.CallStack] = [:]
}
