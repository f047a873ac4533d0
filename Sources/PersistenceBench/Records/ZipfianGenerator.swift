import Foundation

/// YCSB's scrambled zipfian key chooser (Gray et al., "Quickly Generating Billion-Record Synthetic Databases").
///
/// Ranks follow a zipfian distribution with constant `theta` (YCSB: 0.99); each rank is then hashed onto
/// `0..<count`, as YCSB's `ScrambledZipfianGenerator` does, so the popular keys are spread over the key space
/// instead of clustered at its start.
public struct ZipfianGenerator: Sendable {
    public let count: Int
    public let theta: Double
    private let zetaN: Double
    private let alpha: Double
    private let eta: Double

    public init(count: Int, theta: Double = 0.99) {
        self.init(count: count, theta: theta, zetaN: ZipfianGenerator.zeta(count, theta: theta))
    }

    private init(count: Int, theta: Double, zetaN: Double) {
        precondition(count > 0)
        self.count = count
        self.theta = theta
        self.zetaN = zetaN
        let zeta2 = ZipfianGenerator.zeta(2, theta: theta)
        alpha = 1 / (1 - theta)
        eta = (1 - pow(2 / Double(count), 1 - theta)) / (1 - zeta2 / zetaN)
    }

    /// The same distribution over `newCount` (at least `count`) items, as YCSB grows its generator when inserts
    /// add keys: the harmonic number is extended term by term, O(newCount − count).
    public func extended(to newCount: Int) -> ZipfianGenerator {
        precondition(newCount >= count)
        var sum = zetaN
        for i in stride(from: count + 1, through: newCount, by: 1) { sum += 1 / pow(Double(i), theta) }
        return ZipfianGenerator(count: newCount, theta: theta, zetaN: sum)
    }

    /// A zipfian rank in `0..<count`: 0 is the most popular.
    public func nextRank(using rng: inout SplitMix64) -> Int {
        let u = rng.unit()
        let uz = u * zetaN
        if uz < 1 { return 0 }
        if uz < 1 + pow(0.5, theta) { return min(1, count - 1) }
        return min(count - 1, Int(Double(count) * pow(eta * u - eta + 1, alpha)))
    }

    /// A scrambled zipfian value in `0..<count`.
    public func next(using rng: inout SplitMix64) -> Int {
        let rank = nextRank(using: &rng)
        return Int(ZipfianGenerator.fnv1a64(UInt64(rank)) % UInt64(count))
    }

    /// The generalised harmonic number: sum of 1/i^theta for i in 1...n. O(n), once per generator.
    static func zeta(_ n: Int, theta: Double) -> Double {
        var sum = 0.0
        for i in 1...n { sum += 1 / pow(Double(i), theta) }
        return sum
    }

    /// YCSB's FNV-1a over the 8 bytes of a value, least significant first.
    static func fnv1a64(_ value: UInt64) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        var v = value
        for _ in 0..<8 {
            hash ^= v & 0xFF
            hash = hash &* 0x0000_0100_0000_01B3
            v >>= 8
        }
        return hash
    }
}
