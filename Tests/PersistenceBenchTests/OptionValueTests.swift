import Foundation
import Testing

@testable import PersistBenchTool
@testable import PersistenceBench

/// The options' value types: each default the help shows parses back to itself, a bad value is refused by its one
/// validator, and the parser's line for it reads as every other bad value's.
@Suite struct OptionValueTests {
    @Test func everyDefaultParsesBackToItself() throws {
        #expect(try DurationOption(parsing: RunDefaults.timeBudget.description) == RunDefaults.timeBudget)
        #expect(try DurationOption(parsing: RunDefaults.floorTime.description) == RunDefaults.floorTime)
        #expect(try DurationOrNone(parsing: RunDefaults.timeBox.description) == RunDefaults.timeBox)
        #expect(try DurationOrZero(parsing: CheckDefaults.powerTime.description) == CheckDefaults.powerTime)
        #expect(try MemorySize(parsing: RunDefaults.memoryBudget.description) == RunDefaults.memoryBudget)
        #expect(try ScaleList(parsing: RunDefaults.scales.description) == RunDefaults.scales)
        #expect(try Slowdown(parsing: CheckDefaults.detect.description) == CheckDefaults.detect)
        #expect(
            [RunDefaults.timeBudget.description, RunDefaults.timeBox.description, RunDefaults.memoryBudget.description]
                == ["10m", "500ms", "8GiB"])
    }

    @Test func eachTypeRefusesWhatItCannotTake() {
        #expect(throws: OptionValueError.self) { try DurationOption(parsing: "0") }
        #expect(throws: OptionValueError.self) { try DurationOrNone(parsing: "0") }
        #expect(throws: OptionValueError.self) { try MemorySize(parsing: "1KiB") }
        #expect(throws: OptionValueError.self) { try ScaleList(parsing: "10k,,1M") }
        #expect(throws: OptionValueError.self) { try ReaderLevels(parsing: "1,65") }
        #expect(throws: OptionValueError.self) { try Slowdown(parsing: "0%") }
        #expect((try? DurationOrNone(parsing: "none"))?.seconds == nil)
        #expect((try? DurationOrZero(parsing: "0s"))?.seconds == 0)
        #expect((try? ScaleList(parsing: "10k,10000,1M"))?.scales.map(\.records) == [10_000, 1_000_000])
    }

    @Test func theParsersLineReadsAsEveryOtherBadValue() {
        #expect(
            PersistBench.reworded("The value '5x' is invalid for '--time-budget <time-budget>': use a duration")
                == "invalid --time-budget '5x': use a duration")
        #expect(
            PersistBench.reworded("Missing expected argument '--scale <scale>'")
                == "Missing expected argument '--scale <scale>'")
    }
}
