import Foundation

/// An option's value as a type, parsed and checked by one validator: the command line's options take these, and a
/// bad value's reason is the validator's ("use a duration from 1ms to 7 days (168h), such as 90s or 10m").
package protocol OptionValue: CustomStringConvertible, Equatable, Sendable {
    /// The value `text` gives, or `OptionValueError` saying what the option takes.
    init(parsing text: String) throws
}

/// What an option takes, for a value it cannot take: "use a size such as 512MiB or 8GiB".
package struct OptionValueError: Error, CustomStringConvertible {
    package let description: String
}

/// `--time-budget 10m`, `--floor-time 20s`: a duration (`OptionBounds.durationSeconds`).
package struct DurationOption: OptionValue {
    package let description: String
    package let seconds: Double

    package init(parsing text: String) throws {
        guard let seconds = Quantity.seconds(parsing: text), OptionBounds.durationSeconds.contains(seconds) else {
            throw OptionValueError(description: "use a duration \(OptionBounds.durationRange), such as 90s or 10m")
        }
        (description, self.seconds) = (text, seconds)
    }

    package init(seconds: Double) { (description, self.seconds) = (durationText(seconds), seconds) }
}

/// `--time-box 20s` or `none`: a duration, or none (nil seconds).
package struct DurationOrNone: OptionValue {
    package let description: String
    package let seconds: Double?

    package init(parsing text: String) throws {
        guard text != "none" else {
            (description, seconds) = (text, nil)
            return
        }
        do { (description, seconds) = (text, try DurationOption(parsing: text).seconds) } catch {
            throw OptionValueError(description: "use a duration \(OptionBounds.durationRange), such as 20s, or none")
        }
    }

    package init(seconds: Double?) { (description, self.seconds) = (seconds.map(durationText) ?? "none", seconds) }
}

/// `check --power-time 4m` or `0s`: a duration, or none at all (0 seconds).
package struct DurationOrZero: OptionValue {
    package let description: String
    package let seconds: Double

    package init(parsing text: String) throws {
        if Double(text.trimmingCharacters(in: .letters)) == 0 {
            (description, seconds) = (text, 0)
            return
        }
        do { (description, seconds) = (text, try DurationOption(parsing: text).seconds) } catch {
            throw OptionValueError(description: "use a duration \(OptionBounds.durationRange), such as 4m, or 0s")
        }
    }

    package init(seconds: Double) { (description, self.seconds) = (durationText(seconds), seconds) }
}

/// `--memory-budget 8GiB`, `--memory-limit 120MiB`: a size in bytes, at least what a cell's process holds before
/// its store opens (`MemoryCgroup.minimumLimitBytes`): below it every cell would be stopped at once.
package struct MemorySize: OptionValue {
    package let description: String
    package let bytes: Int64

    package init(parsing text: String) throws {
        let least = Quantity.formatBytes(MemoryCgroup.minimumLimitBytes)
        guard let bytes = Quantity.bytes(parsing: text) else {
            throw OptionValueError(description: "use a size from \(least) such as 512MiB or 8GiB")
        }
        guard bytes >= MemoryCgroup.minimumLimitBytes else {
            throw OptionValueError(
                description: "a cell's process needs more than \(least) before its store opens (the Swift runtime, "
                    + "Foundation and this harness), so every cell would be stopped at it")
        }
        (description, self.bytes) = (text, bytes)
    }

    /// `bytes`, a whole number of MiB or GiB.
    package init(bytes: Int64) {
        let gib = Int64(1) << 30
        description = bytes % gib == 0 ? "\(bytes / gib)GiB" : "\(bytes >> 20)MiB"
        self.bytes = bytes
    }
}

/// `--single-repetition-above 1M`, `keys --scale 10k`, `crash --scale`: a record count.
package struct ScaleOption: OptionValue {
    package let description: String
    package let scale: Scale

    package init(parsing text: String) throws {
        guard let scale = Scale(parsing: text) else {
            throw OptionValueError(description: "use a record count from 1 to 10^12 such as 10k, 1M, 1e6 or 1000000")
        }
        (description, self.scale) = (text, scale)
    }

    package init(_ scale: Scale) { (description, self.scale) = (scale.description, scale) }
}

/// `--scales 10k,100k`: record counts, each once, in the order given.
package struct ScaleList: OptionValue {
    package let description: String
    package let scales: [Scale]

    package init(parsing text: String) throws {
        var scales: [Scale] = []
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        for part in parts {
            do {
                let scale = try ScaleOption(parsing: part).scale
                if !scales.contains(scale) { scales.append(scale) }
            } catch let error as OptionValueError where parts.count > 1 {
                throw OptionValueError(description: "'\(part)' is not one: \(error)")
            }
        }
        (description, self.scales) = (text, scales)
    }

    package init(_ scales: [Scale]) {
        (description, self.scales) = (scales.map(\.description).joined(separator: ","), scales)
    }
}

/// `--readers 1,2,4,8`: levels of reader threads, each from 1 to 64.
package struct ReaderLevels: OptionValue {
    package let description: String
    package let levels: [Int]

    package init(parsing text: String) throws {
        let levels = text.split(separator: ",", omittingEmptySubsequences: false).map { Int($0) ?? 0 }
        guard levels.allSatisfy({ (1...64).contains($0) }) else {
            throw OptionValueError(description: "use thread counts from 1 to 64 such as 1,2,4,8")
        }
        (description, self.levels) = (text, levels)
    }
}

/// `check --detect 10%`: a slowdown in percent, as a ratio (1.10).
package struct Slowdown: OptionValue {
    package let description: String
    package let ratio: Double

    package init(parsing text: String) throws {
        let number = text.hasSuffix("%") ? String(text.dropLast()) : text
        guard let percent = Double(number), percent > 0, percent < 1000 else {
            throw OptionValueError(description: "use a slowdown in percent, such as 10%")
        }
        (description, ratio) = (text, 1 + percent / 100)
    }

    package init(percent: Int) { (description, ratio) = ("\(percent)%", 1 + Double(percent) / 100) }
}

/// A duration as an option takes it: "10m", "20s", "500ms".
private func durationText(_ seconds: Double) -> String {
    if seconds >= 3600, seconds.truncatingRemainder(dividingBy: 3600) == 0 { return "\(Int(seconds / 3600))h" }
    if seconds >= 60, seconds.truncatingRemainder(dividingBy: 60) == 0 { return "\(Int(seconds / 60))m" }
    if seconds >= 1, seconds.truncatingRemainder(dividingBy: 1) == 0 { return "\(Int(seconds))s" }
    return "\(Int((seconds * 1000).rounded()))ms"
}
