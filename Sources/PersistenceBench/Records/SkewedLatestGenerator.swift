/// YCSB's `latest` key chooser, as `SkewedLatestGenerator` draws it (YCSB 0.17.0,
/// `core/src/main/java/site/ycsb/generator/SkewedLatestGenerator.java`): a zipfian rank over the keys there are,
/// subtracted from the newest key, so the newest record is the most popular and inserts move the popularity.
///
/// Keys are YCSB's key numbers, from 0; the newest is YCSB's `basis.lastValue()`.
public struct SkewedLatestGenerator: Sendable {
    private var zipfian: ZipfianGenerator

    /// A chooser whose newest key is `newestKey` (line 29: `new ZipfianGenerator(basis.lastValue())`, a zipfian
    /// over that many items).
    public init(newestKey: Int) {
        zipfian = ZipfianGenerator(count: max(newestKey, 1))
    }

    /// A key in `0...newestKey`, given the newest key now (lines 39–40: `max - zipfian.nextLong(max)`).
    ///
    /// A newer key grows the zipfian as YCSB's `nextLong(itemcount)` does (`ZipfianGenerator.extended(to:)`).
    public mutating func next(newestKey: Int, using rng: inout SplitMix64) -> Int {
        if newestKey > zipfian.count { zipfian = zipfian.extended(to: newestKey) }
        return newestKey - zipfian.nextRank(using: &rng)
    }
}
