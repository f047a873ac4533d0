/// A small, fast, seedable PRNG (Steele, Lea and Flood's SplitMix64).
///
/// Every random choice in a data set or key sequence comes from one of these, seeded from the run's seed,
/// a stream tag and (for per-record data) the record's id, so any record can be generated on its own.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    /// A generator for one record's values: independent of the order in which records are generated.
    public init(seed: UInt64, stream: Stream, index: UInt64) {
        state = SplitMix64.mix(seed ^ SplitMix64.mix(stream.rawValue &+ SplitMix64.mix(index)))
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return SplitMix64.mix(state)
    }

    /// A uniform integer in `0..<bound` (Lemire's multiply-shift; the tiny bias is irrelevant here).
    public mutating func below(_ bound: UInt64) -> UInt64 {
        precondition(bound > 0)
        return next().multipliedFullWidth(by: bound).high
    }

    /// A uniform Double in [0, 1).
    public mutating func unit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// The SplitMix64 finaliser: a bijective 64-bit mixer.
    @inline(__always)
    public static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Independent streams of randomness, one per purpose, so that adding a purpose changes no existing data.
    public struct Stream: RawRepresentable, Sendable, Hashable {
        public var rawValue: UInt64
        public init(rawValue: UInt64) { self.rawValue = rawValue }

        public static let item = Stream(rawValue: 1)
        public static let title = Stream(rawValue: 2)
        public static let update = Stream(rawValue: 3)
        public static let updateSelection = Stream(rawValue: 4)
        public static let deleteSelection = Stream(rawValue: 5)
        public static let getKeys = Stream(rawValue: 6)
        public static let queries = Stream(rawValue: 7)
        public static let ycsbOperations = Stream(rawValue: 8)
        public static let ycsbValues = Stream(rawValue: 9)
        public static let sports = Stream(rawValue: 10)
        public static let teams = Stream(rawValue: 11)
        public static let houses = Stream(rawValue: 12)
        public static let houseSelection = Stream(rawValue: 13)
        public static let stacks = Stream(rawValue: 14)
        public static let samples = Stream(rawValue: 15)
        public static let profileWindows = Stream(rawValue: 16)
        public static let storeOrder = Stream(rawValue: 17)
        public static let writeThenPageSelection = Stream(rawValue: 18)
        public static let observedChanges = Stream(rawValue: 19)
        public static let crashTransactions = Stream(rawValue: 20)
        public static let crashStates = Stream(rawValue: 21)
        public static let searchSessions = Stream(rawValue: 22)
        public static let crashContinuations = Stream(rawValue: 23)
        public static let bootstrap = Stream(rawValue: 24)
        public static let readerKeys = Stream(rawValue: 25)
        public static let processLookups = Stream(rawValue: 26)
        public static let pinnedReads = Stream(rawValue: 27)
        public static let recordSizes = Stream(rawValue: 28)
        public static let recordValues = Stream(rawValue: 29)
        public static let recordUpdates = Stream(rawValue: 30)
    }
}
