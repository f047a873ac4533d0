import ArgumentParser
import Foundation
import PersistenceBench

/// An option's value as a type: parsed and checked by one validator, whose error is the reason in the one line a
/// bad value gets ("invalid --time-budget '5x': use a duration from 1ms to 7 days (168h), such as 90s or 10m").
protocol OptionValue: ExpressibleByArgument, CustomStringConvertible, Equatable, Sendable {
    /// The value `text` gives, or `OptionValueError` saying what the option takes.
    init(parsing text: String) throws
}

extension OptionValue {
    init?(argument: String) { try? self.init(parsing: argument) }

    /// For `@Option(transform:)`: the parse whose reason the parser's line ends with.
    @Sendable static func parse(_ text: String) throws -> Self { try Self(parsing: text) }

    var defaultValueDescription: String { description }
}

extension ArgumentHelp {
    /// `text` ending with the default a typed option's `transform` keeps the parser from showing: "… (default: 10m)".
    static func typed(_ text: String, default value: some OptionValue, valueName: String? = nil) -> ArgumentHelp {
        ArgumentHelp("\(text) (default: \(value))", valueName: valueName)
    }
}

/// What an option takes, for a value it cannot take: "use a size such as 512MiB or 8GiB".
struct OptionValueError: Error, CustomStringConvertible {
    let description: String
}

/// `--time-budget 10m`, `--floor-time 20s`: a duration (`OptionBounds.durationSeconds`).
struct DurationOption: OptionValue {
    let description: String
    let seconds: Double

    init(parsing text: String) throws {
        guard let seconds = Quantity.seconds(parsing: text), OptionBounds.durationSeconds.contains(seconds) else {
            throw OptionValueError(description: "use a duration \(OptionBounds.durationRange), such as 90s or 10m")
        }
        (description, self.seconds) = (text, seconds)
    }

    init(seconds: Double) { (description, self.seconds) = (durationText(seconds), seconds) }
}

/// `--time-box 20s` or `none`: a duration, or none (nil seconds).
struct DurationOrNone: OptionValue {
    let description: String
    let seconds: Double?

    init(parsing text: String) throws {
        guard text != "none" else {
            (description, seconds) = (text, nil)
            return
        }
        do { (description, seconds) = (text, try DurationOption(parsing: text).seconds) } catch {
            throw OptionValueError(description: "use a duration \(OptionBounds.durationRange), such as 20s, or none")
        }
    }

    init(seconds: Double?) { (description, self.seconds) = (seconds.map(durationText) ?? "none", seconds) }
}

/// `check --power-time 4m` or `0s`: a duration, or none at all (0 seconds).
struct DurationOrZero: OptionValue {
    let description: String
    let seconds: Double

    init(parsing text: String) throws {
        if Double(text.trimmingCharacters(in: .letters)) == 0 {
            (description, seconds) = (text, 0)
            return
        }
        do { (description, seconds) = (text, try DurationOption(parsing: text).seconds) } catch {
            throw OptionValueError(description: "use a duration \(OptionBounds.durationRange), such as 4m, or 0s")
        }
    }

    init(seconds: Double) { (description, self.seconds) = (durationText(seconds), seconds) }
}

/// `--memory-budget 8GiB`, `--memory-limit 120MiB`: a size in bytes, at least what a cell's process holds before
/// its store opens (`MemoryCgroup.minimumLimitBytes`): below it every cell would be stopped at once.
struct MemorySize: OptionValue {
    let description: String
    let bytes: Int64

    init(parsing text: String) throws {
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
    init(bytes: Int64) {
        let gib = Int64(1) << 30
        description = bytes % gib == 0 ? "\(bytes / gib)GiB" : "\(bytes >> 20)MiB"
        self.bytes = bytes
    }
}

/// `--single-repetition-above 1M`, `keys --scale 10k`, `crash --scale`: a record count.
struct ScaleOption: OptionValue {
    let description: String
    let scale: Scale

    init(parsing text: String) throws {
        guard let scale = Scale(parsing: text) else {
            throw OptionValueError(description: "use a record count from 1 to 10^12 such as 10k, 1M, 1e6 or 1000000")
        }
        (description, self.scale) = (text, scale)
    }

    init(_ scale: Scale) { (description, self.scale) = (scale.description, scale) }
}

/// `--scales 10k,100k`: record counts, each once, in the order given.
struct ScaleList: OptionValue {
    let description: String
    let scales: [Scale]

    init(parsing text: String) throws {
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

    init(_ scales: [Scale]) { (description, self.scales) = (scales.map(\.description).joined(separator: ","), scales) }
}

/// `--readers 1,2,4,8`: levels of reader threads, each from 1 to 64.
struct ReaderLevels: OptionValue {
    let description: String
    let levels: [Int]

    init(parsing text: String) throws {
        let levels = text.split(separator: ",", omittingEmptySubsequences: false).map { Int($0) ?? 0 }
        guard levels.allSatisfy({ (1...64).contains($0) }) else {
            throw OptionValueError(description: "use thread counts from 1 to 64 such as 1,2,4,8")
        }
        (description, self.levels) = (text, levels)
    }
}

/// `check --detect 10%`: a slowdown in percent, as a ratio (1.10).
struct Slowdown: OptionValue {
    let description: String
    let ratio: Double

    init(parsing text: String) throws {
        let number = text.hasSuffix("%") ? String(text.dropLast()) : text
        guard let percent = Double(number), percent > 0, percent < 1000 else {
            throw OptionValueError(description: "use a slowdown in percent, such as 10%")
        }
        (description, ratio) = (text, 1 + percent / 100)
    }

    init(percent: Int) { (description, ratio) = ("\(percent)%", 1 + Double(percent) / 100) }
}

/// A duration as an option takes it: "10m", "20s", "500ms".
private func durationText(_ seconds: Double) -> String {
    if seconds >= 3600, seconds.truncatingRemainder(dividingBy: 3600) == 0 { return "\(Int(seconds / 3600))h" }
    if seconds >= 60, seconds.truncatingRemainder(dividingBy: 60) == 0 { return "\(Int(seconds / 60))m" }
    if seconds >= 1, seconds.truncatingRemainder(dividingBy: 1) == 0 { return "\(Int(seconds))s" }
    return "\(Int((seconds * 1000).rounded()))ms"
}
