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

    /// Notes an answer where a re-ask records them (`AnswerTrace`): an item's, a record's and a folded digest's add
    /// call it behind `if AnswerTrace.anyRecording`, one load of a flag and a branch where nothing records.
    ///
    /// Plain numbers and texts (counts, houses' rooms, teams) are not noted: a branch there cost the house workloads 35
    /// instructions an operation, ×1.14 on `memory`, by what it changed in their inlining.
    @inline(never)
    private static func note(_ describe: () -> String) {
        AnswerTrace.active?.note(describe())
    }

    /// Adds one answer: an item.
    public mutating func add(_ item: Item) {
        if AnswerTrace.anyRecording { Self.note { Self.describe(item) } }
        count += 1
        combine(UInt64(bitPattern: item.id))
        combine(item.title)
        combine(item.notes)
        combine(item.isInStock ? 1 : 0)
        combine(UInt64(bitPattern: Int64(item.priority?.rawValue ?? -1)))
        combine(UInt64(bitPattern: Self.rounded(item.price * 100)))
        combine(UInt64(bitPattern: Self.rounded(item.createdAt.timeIntervalSince1970 * 1000)))
    }

    /// Adds one answer: a record of a shape, every value in field order (doubles by their bits: every store keeps
    /// a record's doubles as IEEE doubles and returns them exactly; blobs as texts are, length then bytes).
    package mutating func add(_ record: Record) {
        if AnswerTrace.anyRecording { Self.note { Self.describe(record) } }
        count += 1
        combine(UInt64(bitPattern: record.id))
        for value in record.values {
            switch value {
            case .integer(let number), .date(let number): combine(UInt64(bitPattern: number))
            case .double(let number): combine(number.bitPattern)
            case .bool(let flag): combine(flag ? 1 : 0)
            case .text(let text): combine(text)
            case .blob(let bytes): bytes.withUnsafeBytes { combine(utf8: $0) }
            }
        }
    }

    /// Adds a run of bytes (a file's contents, a block of it): its length, then the bytes.
    package mutating func add(bytes: UnsafeRawBufferPointer) {
        count += 1
        combine(utf8: bytes)
    }

    /// Adds one lookup's answer: the record, or -1 where there is none.
    package mutating func add(answer record: Record?) {
        if let record { add(record) } else { add(-1) }
    }

    /// The nearest integer, halves away from zero, as `rounded()` gives it, without a call into libm: a value
    /// the generator made (whole cents, whole milliseconds) is within a rounding error of an integer.
    ///
    /// A value no generator makes (NaN, an infinity, beyond Int64: a damaged file's) is hashed as its bits rather than
    /// trapping in the conversion.
    @inline(__always)
    private static func rounded(_ value: Double) -> Int64 {
        guard value.magnitude < 9e18 else { return Int64(bitPattern: value.bitPattern) }
        return Int64(value < 0 ? value - 0.5 : value + 0.5)
    }

    /// The digest of a list of items (a page), in order.
    public init(_ items: [Item]) {
        self.init()
        for item in items { add(item) }
    }

    /// Adds one lookup's answer: the item, or -1 where there is none.
    public mutating func add(answer item: Item?) {
        if let item { add(item) } else { add(-1) }
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
    @inline(__always)
    public mutating func add(_ other: Digest) {
        if AnswerTrace.anyRecording { Self.note { "\(other.count) answers, digest \(other)" } }
        count += 1
        combine(UInt64(other.count))
        combine(other.hash)
    }

    /// An item as a trace shows it: every field the digest reads, at the digest's precision.
    static func describe(_ item: Item) -> String {
        "item \(item.id) title \(quoted(item.title)) notes \(quoted(item.notes)) "
            + "\(item.isInStock ? "in stock" : "not in stock") priority \(item.priority.map { "\($0.rawValue)" } ?? "none") "
            + "price \(rounded(item.price * 100)) cents createdAt \(rounded(item.createdAt.timeIntervalSince1970 * 1000)) ms"
    }

    /// A record as a trace shows it: its id and every value in field order.
    static func describe(_ record: Record) -> String {
        "record \(record.id): "
            + record.values.map { value in
                switch value {
                case .integer(let number), .date(let number): String(number)
                case .double(let number): String(number)
                case .bool(let flag): String(flag)
                case .text(let text): quoted(text)
                case .blob(let bytes): "\(bytes.count) bytes"
                }
            }.joined(separator: ", ")
    }

    /// A text in quotes, cut at 80 characters.
    static func quoted(_ text: String) -> String {
        text.count > 80 ? "\"\(text.prefix(80))…\" (\(text.utf8.count) bytes)" : "\"\(text)\""
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

    /// The UTF-8 length, then the bytes eight at a time, the last partial word zero-padded (loaded as one
    /// overlapping word and shifted, so no copy), read in place from the string's storage.
    @inline(__always)
    private mutating func combine(_ string: String) {
        let hashed: Void? = string.utf8.withContiguousStorageIfAvailable { combine(utf8: UnsafeRawBufferPointer($0)) }
        if hashed == nil { Array(string.utf8).withUnsafeBytes { combine(utf8: $0) } }
    }

    @inline(__always)
    private mutating func combine(utf8 bytes: UnsafeRawBufferPointer) {
        let length = bytes.count
        combine(UInt64(length))
        guard let raw = bytes.baseAddress, length > 0 else { return }
        var offset = 0
        while offset + 8 <= length {
            combine(UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
            offset += 8
        }
        let rest = length - offset
        guard rest > 0 else { return }
        if length >= 8 {
            let last = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: length - 8, as: UInt64.self))
            combine(last >> UInt64(8 * (8 - rest)))
        } else {
            var tail: UInt64 = 0
            for index in 0..<rest { tail |= UInt64(raw.load(fromByteOffset: index, as: UInt8.self)) << (8 * index) }
            combine(tail)
        }
    }
}
