import Foundation

/// One sample of a time profile: when, which process and thread, and the call stack.
public struct Sample: Equatable, Hashable, Sendable {
    /// Nanoseconds since the profile started; strictly increasing with the sample's index.
    public var timestamp: Int64
    public var pid: Int32
    public var tid: Int32
    /// Return addresses, innermost (the leaf frame, where the thread was) first: 5–120 of them.
    public var callStack: [UInt64]

    public init(timestamp: Int64, pid: Int32, tid: Int32, callStack: [UInt64]) {
        self.timestamp = timestamp
        self.pid = pid
        self.tid = tid
        self.callStack = callStack
    }

    /// The frame the thread was executing.
    public var leafFrame: UInt64 { callStack[0] }
}

/// One line of `profile-window`'s answer: a leaf frame and in how many samples of the window it was the leaf.
public struct FrameCount: Equatable, Hashable, Sendable {
    public var frame: UInt64
    public var samples: Int

    public init(frame: UInt64, samples: Int) {
        self.frame = frame
        self.samples = samples
    }

    /// The `limit` most frequent frames of `counts`, most frequent first, ties by frame: the answer every store
    /// gives, whether its aggregate ran in SQL or in Swift.
    public static func top(_ limit: Int, of counts: [UInt64: Int]) -> [FrameCount] {
        counts.map { FrameCount(frame: $0.key, samples: $0.value) }
            .sorted { $0.samples != $1.samples ? $0.samples > $1.samples : $0.frame < $1.frame }
            .prefix(limit).map { $0 }
    }
}

/// Generates the time profile of a seed: sample `index` (from 0) is taken about `index` ms into the profile, its
/// call stack drawn with zipfian skew from `distinctStacks` stacks of 5–120 frames (mean about 30), whose leaf
/// frames are themselves skewed over `functions` functions, so that a window's top leaf frames are a real ranking.
///
/// The stacks are generated once (about a megabyte); a sample shares its stack's array, so generating a batch
/// copies no frames.
public struct SampleGenerator: Sendable {
    public static let distinctStacks = 4_096
    public static let functions = 2_000
    /// The sampling interval: 1 ms, jittered within it.
    public static let interval: Int64 = 1_000_000

    public let seed: UInt64
    public let stacks: [[UInt64]]
    private let stackPopularity = ZipfianGenerator(count: distinctStacks)

    public init(seed: UInt64) {
        self.seed = seed
        let leafPopularity = ZipfianGenerator(count: Self.functions)
        stacks = (0..<Self.distinctStacks).map { index in
            var rng = SplitMix64(seed: seed, stream: .stacks, index: UInt64(index))
            let depth = 5 + min(115, Int(-log(1 - rng.unit()) * 25))
            var frames = [Self.returnAddress(function: leafPopularity.next(using: &rng), using: &rng)]
            frames.reserveCapacity(depth)
            while frames.count < depth {
                frames.append(Self.returnAddress(function: Int(rng.below(UInt64(Self.functions))), using: &rng))
            }
            return frames
        }
    }

    /// An address inside `function`'s code (functions are 4 KiB apart in a user-space text segment), below 2^47
    /// as user-space addresses are, so that signed and unsigned 64-bit orders agree.
    private static func returnAddress(function: Int, using rng: inout SplitMix64) -> UInt64 {
        0x5555_5540_0000 + UInt64(function) * 0x1000 + 4 * rng.below(512)
    }

    public func sample(index: Int64) -> Sample {
        var rng = SplitMix64(seed: seed, stream: .samples, index: UInt64(index))
        let timestamp = index * Self.interval + Int64(rng.below(UInt64(Self.interval)))
        let pid = 100 + Int32(rng.below(4))
        let tid = pid * 100 + Int32(rng.below(16))
        return Sample(
            timestamp: timestamp, pid: pid, tid: tid, callStack: stacks[stackPopularity.next(using: &rng)])
    }

    /// Samples `range.lowerBound..<range.upperBound`, in time order.
    public func samples(_ range: Range<Int64>) -> [Sample] { range.map(sample(index:)) }
}

/// Numbers the distinct call stacks a profile store keeps once each: ids from 1, in order of first appearance.
public final class StackInterner {
    private var ids: [[UInt64]: Int64] = [:]

    public init() {}

    /// How many stacks have ids.
    public var count: Int { ids.count }

    /// Registers a stack the store already holds (when it reopens).
    public func register(_ stack: [UInt64], id: Int64) { ids[stack] = id }

    /// The stack's id, and whether it is new (the store must then store it).
    public func id(of stack: [UInt64]) -> (id: Int64, isNew: Bool) {
        if let id = ids[stack] { return (id, false) }
        let id = Int64(ids.count + 1)
        ids[stack] = id
        return (id, true)
    }

    /// Forgets stacks registered after the first `count`: their transaction did not commit.
    public func rollBack(to count: Int) {
        guard ids.count > count else { return }
        ids = ids.filter { $0.value <= Int64(count) }
    }
}

extension Digest {
    /// Adds one answer: a sample, all its frames included.
    public mutating func add(_ sample: Sample) {
        add(Int(sample.timestamp))
        add(Int(sample.pid) << 32 | Int(sample.tid))
        add(sample.callStack.count)
        for frame in sample.callStack { add(Int(bitPattern: UInt(frame))) }
    }

    /// Adds one answer: a frame and its count.
    public mutating func add(_ count: FrameCount) {
        add(Int(bitPattern: UInt(count.frame)))
        add(count.samples)
    }
}

/// Stack frames as bytes: 8 little-endian bytes per frame, the layout the SQL and key-value stores keep a stack in.
public enum StackBytes {
    public static func encode(_ stack: [UInt64]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(stack.count * 8)
        for frame in stack { withUnsafeBytes(of: frame.littleEndian) { bytes.append(contentsOf: $0) } }
        return bytes
    }

    public static func decode(_ bytes: UnsafeRawBufferPointer) -> [UInt64] {
        (0..<bytes.count / 8).map { UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 8 * $0, as: UInt64.self)) }
    }
}
