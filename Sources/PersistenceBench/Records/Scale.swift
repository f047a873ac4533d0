import Foundation

/// A data-set size in records, as written on the command line: `10k`, `1M`, `1e6`, `1000000`.
public struct Scale: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public let records: Int

    public init(records: Int) {
        precondition(records > 0)
        self.records = records
    }

    /// Parses `10k`, `100K`, `1M`, `10m`, `1G`, `1e6`, `2.5M` or a plain integer; nil for anything else,
    /// for zero, negative or fractional record counts, and for more than 10^12 records.
    public init?(parsing text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let last = trimmed.last else { return nil }
        let multipliers: [Character: Double] = ["k": 1e3, "K": 1e3, "m": 1e6, "M": 1e6, "g": 1e9, "G": 1e9]
        var number = trimmed
        var multiplier = 1.0
        if let found = multipliers[last] {
            multiplier = found
            number.removeLast()
        }
        guard !number.isEmpty, number.allSatisfy({ $0.isNumber || $0 == "." || $0 == "e" || $0 == "E" || $0 == "+" }),
            let value = Double(number)
        else { return nil }
        let records = value * multiplier
        guard records.isFinite, records >= 1, records <= 1e12, records == records.rounded() else { return nil }
        self.init(records: Int(records))
    }

    /// The short form: `10k`, `1M`, `2.5M`, `1234`.
    public var description: String {
        for (suffix, unit) in [("G", 1_000_000_000), ("M", 1_000_000), ("k", 1000)] where records >= unit {
            if records % unit == 0 { return "\(records / unit)\(suffix)" }
            if (records * 10) % unit == 0 { return "\(Double(records) / Double(unit))\(suffix)" }
        }
        return "\(records)"
    }

    public static func < (a: Scale, b: Scale) -> Bool { a.records < b.records }

    public init(from decoder: any Decoder) throws {
        let records = try decoder.singleValueContainer().decode(Int.self)
        guard records > 0 else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "scale \(records)"))
        }
        self.init(records: records)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(records)
    }
}
