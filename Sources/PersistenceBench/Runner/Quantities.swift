import Foundation

/// Parses durations and byte sizes as written on the command line.
package enum Quantity {
    /// `90`, `90s`, `2.5m`, `1h`, `500ms` → seconds; nil if malformed, zero or negative.
    package static func seconds(parsing text: String) -> Double? {
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600)]
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        for (suffix, factor) in units where trimmed.hasSuffix(suffix) {
            return positive(String(trimmed.dropLast(suffix.count)), factor)
        }
        return positive(trimmed, 1)
    }

    /// `512MiB`, `8GiB`, `8G`, `100MB`, `1048576` → bytes (K, M, G, T in powers of 1024); nil if malformed.
    package static func bytes(parsing text: String) -> Int64? {
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

    /// A budget as a person gives it: `1 h`, `30 min`, `90 s`, `0.3 s`.
    package static func formatBudget(_ seconds: Double) -> String {
        if seconds >= 3600 && seconds.truncatingRemainder(dividingBy: 3600) == 0 { return "\(Int(seconds / 3600)) h" }
        if seconds >= 60 && seconds.truncatingRemainder(dividingBy: 60) == 0 { return "\(Int(seconds / 60)) min" }
        return seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
    }

    /// `1.5 GiB`, `320 MiB`, `12 KiB`, `100 B`.
    package static func formatBytes(_ bytes: Int64) -> String {
        let value = Double(bytes)
        for (unit, factor) in [("TiB", 0x1p40), ("GiB", 0x1p30), ("MiB", 0x1p20), ("KiB", 0x1p10)] where value >= factor
        {
            return String(format: value / factor >= 100 ? "%.0f" : "%.1f", value / factor) + " " + unit
        }
        return "\(bytes) B"
    }
}
