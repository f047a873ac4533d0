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

/// Parses durations and byte sizes as written on the command line.
public enum Quantity {
    /// `90`, `90s`, `2.5m`, `1h`, `500ms` → seconds; nil if malformed, zero or negative.
    public static func seconds(parsing text: String) -> Double? {
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600)]
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        for (suffix, factor) in units where trimmed.hasSuffix(suffix) {
            return positive(String(trimmed.dropLast(suffix.count)), factor)
        }
        return positive(trimmed, 1)
    }

    /// `512MiB`, `8GiB`, `8G`, `100MB`, `1048576` → bytes (K, M, G, T in powers of 1024); nil if malformed.
    public static func bytes(parsing text: String) -> Int64? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        let units: [(String, Double)] = [
            ("kib", 0x1p10), ("mib", 0x1p20), ("gib", 0x1p30), ("tib", 0x1p40),
            ("kb", 0x1p10), ("mb", 0x1p20), ("gb", 0x1p30), ("tb", 0x1p40),
            ("k", 0x1p10), ("m", 0x1p20), ("g", 0x1p30), ("t", 0x1p40), ("b", 1),
        ]
        for (suffix, factor) in units where trimmed.hasSuffix(suffix) {
            return positive(String(trimmed.dropLast(suffix.count)), factor).map { Int64($0) }
        }
        return positive(trimmed, 1).map { Int64($0) }
    }

    private static func positive(_ number: String, _ factor: Double) -> Double? {
        guard !number.isEmpty, number.allSatisfy({ $0.isNumber || $0 == "." }), let value = Double(number),
            value > 0, value * factor < 0x1p62
        else { return nil }
        return value * factor
    }

    /// A duration to three significant digits in the unit that reads best: 41.2 ns, 3.05 µs, 12.4 ms, 1.23 s.
    package static func formatTime(_ seconds: Double) -> String {
        if seconds >= 1 { return String(format: "%.3g s", seconds) }
        if seconds >= 1e-3 { return String(format: "%.3g ms", seconds * 1e3) }
        if seconds >= 1e-6 { return String(format: "%.3g µs", seconds * 1e6) }
        return String(format: "%.3g ns", seconds * 1e9)
    }

    /// A wall time as a person reads it: `38 s`, `4 min 12 s`, `2 h 05 min`.
    package static func formatDuration(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        if whole < 60 { return "\(whole) s" }
        if whole < 3600 { return "\(whole / 60) min " + String(format: "%02d s", whole % 60) }
        return "\(whole / 3600) h " + String(format: "%02d min", (whole % 3600) / 60)
    }

    /// `1.5 GiB`, `320 MiB`, `12 KiB`, `100 B`.
    public static func formatBytes(_ bytes: Int64) -> String {
        let value = Double(bytes)
        for (unit, factor) in [("TiB", 0x1p40), ("GiB", 0x1p30), ("MiB", 0x1p20), ("KiB", 0x1p10)] where value >= factor
        {
            return String(format: value / factor >= 100 ? "%.0f" : "%.1f", value / factor) + " " + unit
        }
        return "\(bytes) B"
    }
}
