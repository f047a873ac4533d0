import Foundation

/// A zipfian chooser over `count` items: Gray et al., "Quickly Generating Billion-Record Synthetic Databases"
/// (SIGMOD 1994), as YCSB's `ZipfianGenerator` implements it (YCSB 0.17.0,
/// `core/src/main/java/site/ycsb/generator/ZipfianGenerator.java`).
///
/// `nextRank` draws a rank in `0..<count`, 0 the most popular. `next` scatters a rank over the items with FNV-1a,
/// for the data generators' popularity (sports, call stacks, leaf functions). YCSB's key choosers are built on it:
/// `ScrambledZipfianGenerator` and `SkewedLatestGenerator`.
public struct ZipfianGenerator: Sendable {
    /// The items ranks are drawn over (YCSB's `itemcount`).
    public let count: Int
    public let theta: Double
    /// ζ(count, theta): the generalised harmonic number.
    let zetaN: Double
    private let alpha: Double
    private let eta: Double
    /// The item count `eta` was computed for (YCSB's `items`): the count the generator was made with, which
    /// `extended(to:)` keeps, as YCSB does.
    private let etaItems: Int

    public init(count: Int, theta: Double = 0.99) {
        self.init(count: count, theta: theta, zetaN: ZipfianGenerator.zeta(count, theta: theta), etaItems: count)
    }

    /// A generator over `count` items with a precomputed ζ (YCSB's four-argument constructor).
    init(count: Int, theta: Double, zetaN: Double, etaItems: Int) {
        precondition(count > 0)
        self.count = count
        self.theta = theta
        self.zetaN = zetaN
        self.etaItems = etaItems
        // ZipfianGenerator.java:140–145 (and 232 when the count grows): eta from the constructor's item count.
        let zeta2 = ZipfianGenerator.zeta(2, theta: theta)
        alpha = 1 / (1 - theta)
        eta = (1 - pow(2 / Double(etaItems), 1 - theta)) / (1 - zeta2 / zetaN)
    }

    /// The same distribution over `newCount` (at least `count`) items, as YCSB's `nextLong(itemcount)` grows it
    /// when inserts add keys (ZipfianGenerator.java:231–232): ζ extended term by term, O(newCount − count); `eta`
    /// recomputed with the new ζ but the original item count.
    public func extended(to newCount: Int) -> ZipfianGenerator {
        precondition(newCount >= count)
        var sum = zetaN
        for i in stride(from: count + 1, through: newCount, by: 1) { sum += 1 / pow(Double(i), theta) }
        return ZipfianGenerator(count: newCount, theta: theta, zetaN: sum, etaItems: etaItems)
    }

    /// A zipfian rank in `0..<count`: 0 is the most popular (ZipfianGenerator.java:250–261).
    public func nextRank(using rng: inout SplitMix64) -> Int {
        let u = rng.unit()
        let uz = u * zetaN
        if uz < 1 { return 0 }
        if uz < 1 + pow(0.5, theta) { return min(1, count - 1) }
        return min(count - 1, Int(Double(count) * pow(eta * u - eta + 1, alpha)))
    }

    /// A rank scattered over `0..<count` by its FNV-1a hash: the popular items spread over the item space.
    public func next(using rng: inout SplitMix64) -> Int {
        let rank = nextRank(using: &rng)
        return Int(ZipfianGenerator.fnv1a64(UInt64(rank)) % UInt64(count))
    }

    /// The generalised harmonic number: the sum of 1/i^theta for i in 1...n.
    ///
    /// Summed term by term up to a million terms (exactly as YCSB's `zetastatic`); past that, the first million summed
    /// and the rest by the Euler–Maclaurin formula (integral, end-point and two derivative terms: error below 1e-15),
    /// so that ζ over YCSB's 10¹⁰ ranks takes milliseconds, not minutes.
    public static func zeta(_ n: Int, theta: Double) -> Double {
        let summed = min(n, 1_000_000)
        var sum = 0.0
        for i in stride(from: 1, through: summed, by: 1) { sum += 1 / pow(Double(i), theta) }
        guard n > summed else { return sum }
        // The sum over m...n of f(x) = x^-theta, with m = summed + 1.
        let m = Double(summed + 1)
        let end = Double(n)
        func f(_ x: Double) -> Double { pow(x, -theta) }
        func f1(_ x: Double) -> Double { -theta * pow(x, -theta - 1) }
        func f3(_ x: Double) -> Double { -theta * (theta + 1) * (theta + 2) * pow(x, -theta - 3) }
        let integral =
            theta == 1 ? log(end / m) : (pow(end, 1 - theta) - pow(m, 1 - theta)) / (1 - theta)
        return sum + integral + (f(m) + f(end)) / 2 + (f1(end) - f1(m)) / 12 - (f3(end) - f3(m)) / 720
    }

    /// FNV-1a over the 8 bytes of a value, least significant first (YCSB's `Utils.fnvhash64` before its sign
    /// handling, Utils.java:52–64).
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
