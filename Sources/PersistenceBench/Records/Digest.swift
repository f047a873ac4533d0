/// What a workload read: how many answers, and an order-sensitive hash of them.
///
/// Two stores that answer the same questions with the same values in the same order have equal digests;
/// any difference in a single field, in order, or in count shows. Prices and dates are hashed as whole cents
/// and whole milliseconds, the precision the generator produces.
public struct Digest: Equatable, Hashable, Sendable, Codable, CustomStringConvertible {
    public private(set) var count: Int
    public private(set) var hash: UInt64

    public init() {
        count = 0
        hash = 0x243F_6A88_85A3_08D3
    }

    public init(count: Int, hash: UInt64) {
        self.count = count
        self.hash = hash
    }

    /// Adds one answer: an item.
    public mutating func add(_ item: Item) {
        count += 1
        combine(UInt64(bitPattern: item.id))
        combine(item.title)
        combine(item.notes)
        combine(item.isInStock ? 1 : 0)
        combine(UInt64(bitPattern: Int64(item.priority?.rawValue ?? -1)))
        combine(UInt64(bitPattern: Int64((item.price * 100).rounded())))
        combine(UInt64(bitPattern: Int64((item.createdAt.timeIntervalSince1970 * 1000).rounded())))
    }

    /// Adds one answer: a number (a count, a missing-record marker).
    public mutating func add(_ value: Int) {
        count += 1
        combine(UInt64(bitPattern: Int64(value)))
    }

    /// Adds one answer: a text (a name, an address).
    public mutating func add(_ text: String) {
        count += 1
        combine(text)
    }

    /// Folds another digest in, as one answer (for example one page of a query).
    public mutating func add(_ other: Digest) {
        count += 1
        combine(UInt64(other.count))
        combine(other.hash)
    }

    /// `count:hash`, the form written to results files.
    public var description: String {
        let hex = String(hash, radix: 16)
        return "\(count):\(String(repeating: "0", count: 16 - hex.count))\(hex)"
    }

    /// Parses the `count:hash` form.
    public init?(_ text: String) {
        let parts = text.split(separator: ":")
        guard parts.count == 2, let count = Int(parts[0]), count >= 0, let hash = UInt64(parts[1], radix: 16)
        else { return nil }
        self.init(count: count, hash: hash)
    }

    // Encoded as its `count:hash` string: JSON readers that hold numbers as doubles would round a 64-bit hash.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let digest = Digest(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a digest: \(text)")
        }
        self = digest
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    // One multiply and a rotate per 8 bytes: cheap enough to run inside a timed scan, and any change to a value
    // or to the order of values changes the hash. Not a cryptographic hash, and it need not be.
    @inline(__always)
    private mutating func combine(_ value: UInt64) {
        let mixed = (hash ^ value) &* 0x9E37_79B9_7F4A_7C15
        hash = (mixed << 29) | (mixed >> 35)
    }

    @inline(__always)
    private mutating func combine(_ string: String) {
        var string = string
        string.withUTF8 { bytes in
            combine(UInt64(bytes.count))
            guard let base = bytes.baseAddress else { return }
            let raw = UnsafeRawPointer(base)
            var offset = 0
            while offset + 8 <= bytes.count {
                combine(UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
                offset += 8
            }
            if offset < bytes.count {
                var tail: UInt64 = 0
                withUnsafeMutableBytes(of: &tail) {
                    $0.copyMemory(from: UnsafeRawBufferPointer(start: raw + offset, count: bytes.count - offset))
                }
                combine(UInt64(littleEndian: tail))
            }
        }
    }
}
