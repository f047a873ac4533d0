/// A seeded bijection on `0..<count`, computed in O(1) memory.
///
/// `update` and `delete` touch "a seeded 10% of ids": the first `count / 10` values of a permutation, so the
/// ids are distinct, scattered and in random order, and never need an array of N entries (at 100M records
/// that array alone would be 800 MB). A 4-round Feistel network on the next power of two, with cycle-walking.
public struct SeededPermutation: Sendable {
    public let count: Int
    private let halfBits: Int
    private let halfMask: UInt64
    private let keys: [UInt64]

    public init(count: Int, seed: UInt64, stream: SplitMix64.Stream) {
        precondition(count > 0, "a permutation needs at least one element")
        self.count = count
        var bits = 2
        while (UInt64(1) << UInt64(bits)) < UInt64(count) { bits += 2 }
        halfBits = bits / 2
        halfMask = (UInt64(1) << UInt64(halfBits)) - 1
        var rng = SplitMix64(seed: seed, stream: stream, index: UInt64(count))
        keys = (0..<4).map { _ in rng.next() }
    }

    /// The element at `position` of the permutation, in `0..<count`.
    public subscript(position: Int) -> Int {
        precondition(position >= 0 && position < count)
        var value = UInt64(position)
        repeat { value = encrypt(value) } while value >= UInt64(count)
        return Int(value)
    }

    private func encrypt(_ value: UInt64) -> UInt64 {
        var left = value >> UInt64(halfBits)
        var right = value & halfMask
        for key in keys {
            let next = left ^ (SplitMix64.mix(right ^ key) & halfMask)
            left = right
            right = next
        }
        return (left << UInt64(halfBits)) | right
    }
}
