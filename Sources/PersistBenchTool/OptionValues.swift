import ArgumentParser
import PersistenceBench

// The options' value types (`OptionValue`, in the core) as the parser takes them: each conformance's
// `init?(argument:)` is the type's validator, and `parse` hands the parser its reason for the one line a bad value
// gets ("invalid --time-budget '5x': use a duration from 1ms to 7 days (168h), such as 90s or 10m").
extension DurationOption: ExpressibleByArgument {}
extension DurationOrNone: ExpressibleByArgument {}
extension DurationOrZero: ExpressibleByArgument {}
extension MemorySize: ExpressibleByArgument {}
extension ScaleOption: ExpressibleByArgument {}
extension ScaleList: ExpressibleByArgument {}
extension ReaderLevels: ExpressibleByArgument {}
extension Slowdown: ExpressibleByArgument {}

extension OptionValue where Self: ExpressibleByArgument {
    package init?(argument: String) { try? self.init(parsing: argument) }

    /// For `@Option(transform:)`: the parse whose reason the parser's line ends with.
    @Sendable static func parse(_ text: String) throws -> Self { try Self(parsing: text) }

    package var defaultValueDescription: String { description }
}

extension ArgumentHelp {
    /// `text` ending with the default a typed option's `transform` keeps the parser from showing: "… (default: 10m)".
    static func typed(_ text: String, default value: some OptionValue, valueName: String? = nil) -> ArgumentHelp {
        ArgumentHelp("\(text) (default: \(value))", valueName: valueName)
    }
}

extension NewFileRule: ExpressibleByArgument {
    // A raw-value enum has the parser's own conformance too: this one is the type's validator.
    package init?(argument: String) { try? self.init(parsing: argument) }

    package var defaultValueDescription: String { description }
}
