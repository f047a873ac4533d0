import Foundation

/// YCSB's scrambled zipfian key chooser, as `ScrambledZipfianGenerator` draws it (YCSB 0.17.0,
/// `core/src/main/java/site/ycsb/generator/ScrambledZipfianGenerator.java`): a zipfian rank over YCSB's fixed
/// 10¹⁰ items, whatever the key count, then hashed onto the keys.
///
/// Drawing the ranks over 10¹⁰ items and folding them onto N keys flattens the distribution compared with ranks
/// over N: over 100k keys, the hottest key takes about 3.8 % of the draws, not 7.8 %. What this draws is what a
/// YCSB client draws, so figures measured with it sit beside published YCSB results.
public struct ScrambledZipfianGenerator: Sendable {
    /// `ITEM_COUNT` (ScrambledZipfianGenerator.java:35): ranks are drawn over this many items.
    static let rankItemCount = 10_000_000_000
    /// `ZETAN` (line 33): ζ(ITEM_COUNT, 0.99), precomputed by YCSB.
    static let precomputedZeta = 26.46902820178302
    /// `USED_ZIPFIAN_CONSTANT` (line 34) and `ZipfianGenerator.ZIPFIAN_CONSTANT` (ZipfianGenerator.java:43): the
    /// constant YCSB's workloads use, the only one its ζ was precomputed for.
    public static let defaultConstant = 0.99

    /// The keys, `0..<count`.
    public let count: Int
    private let ranks: ZipfianGenerator

    public init(count: Int, theta: Double = defaultConstant) {
        precondition(count > 0)
        self.count = count
        // Lines 88–92: `new ZipfianGenerator(0, ITEM_COUNT, …)` spans 0...ITEM_COUNT, ITEM_COUNT + 1 items, with the
        // precomputed ζ for 0.99 and a fresh one (over ITEM_COUNT + 1 items, as `zetastatic(max - min + 1, …)`)
        // for any other constant.
        let items = Self.rankItemCount + 1
        let zeta =
            theta == Self.defaultConstant ? Self.precomputedZeta : ZipfianGenerator.zeta(items, theta: theta)
        ranks = ZipfianGenerator(count: items, theta: theta, zetaN: zeta, etaItems: items)
    }

    /// A key in `0..<count` (line 103: `min + Utils.fnvhash64(rank) % itemcount`).
    public func next(using rng: inout SplitMix64) -> Int {
        Self.key(rank: ranks.nextRank(using: &rng), count: count)
    }

    /// Where YCSB puts `rank` among `count` keys: FNV-1a 64 of the rank read as Java's signed `long`, its
    /// `Math.abs` (Utils.java:64), then the remainder.
    ///
    /// Java leaves `Long.MIN_VALUE` negative and would yield a negative key for that one hash in 2⁶⁴; its magnitude is
    /// used here instead.
    static func key(rank: Int, count: Int) -> Int {
        let hash = Int64(bitPattern: ZipfianGenerator.fnv1a64(UInt64(rank)))
        return Int(hash.magnitude % UInt64(count))
    }
}
