import PersistenceBench

/// The time profile on the heap stores: samples in an array in time order, each naming its call stack, every
/// distinct stack kept once (found by hashing it); a window is found by binary search.
extension MemoryItemStore: ProfileStore {
    /// One batch of an ingest, in the heap only (as `insert(_:)`).
    package func insert(samples batch: [Sample]) throws {
        var previous = samples.last?.timestamp ?? Int64.min
        samples.reserveCapacity(samples.count + batch.count)
        for sample in batch {
            guard sample.timestamp > previous, !sample.callStack.isEmpty else {
                throw BenchError("\(name): sample at \(sample.timestamp) is out of order or has no call stack")
            }
            previous = sample.timestamp
            let stack: Int32
            if let known = stackIDs[sample.callStack] {
                stack = known
            } else {
                stack = Int32(stacks.count)
                stacks.append(sample.callStack)
                stackIDs[sample.callStack] = stack
            }
            samples.append(StoredSample(timestamp: sample.timestamp, pid: sample.pid, tid: sample.tid, stack: stack))
        }
        unsaved = true
    }

    package func topLeafFrames(from timestamp: Int64, samples count: Int, limit: Int) throws -> [FrameCount] {
        var low = 0
        var high = samples.count
        while low < high {
            let middle = (low + high) / 2
            if samples[middle].timestamp < timestamp { low = middle + 1 } else { high = middle }
        }
        var leafCounts: [UInt64: Int] = [:]
        for sample in samples[low..<min(samples.count, low + count)] {
            leafCounts[stacks[Int(sample.stack)][0], default: 0] += 1
        }
        return FrameCount.top(limit, of: leafCounts)
    }

    package func forEachSample(_ body: (Sample) throws -> Void) throws {
        for sample in samples {
            try body(
                Sample(
                    timestamp: sample.timestamp, pid: sample.pid, tid: sample.tid, callStack: stacks[Int(sample.stack)])
            )
        }
    }
}
