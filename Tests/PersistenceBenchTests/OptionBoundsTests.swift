import ArgumentParser
import Foundation
import PersistenceBench
import Testing

@testable import PersistBenchTool

/// Every option of every command, driven with extreme values in this process: each is parsed and validated (a
/// trap would end the test process), and a number past its range is refused with one line.
@Suite struct OptionBoundsTests {
    /// The values every option is given: zero, negatives, each integer type's maximum, huge and tiny durations,
    /// exponents, not-a-number.
    static let extremes = [
        "0", "-1", "-5", "9223372036854775807", "18446744073709551615", "99999999999999999999999", "1e30", "-1e30",
        "1e308", "5200000h", "1e30h", "1e-30s", "0s", "100G", "1e15", "nan", "inf", "", "1,0,-1",
    ]

    /// The commands and options of `persistbench`, read from its own help dump, with the positional arguments each
    /// needs filled in.
    static func options() throws -> [(command: String, option: String, positionals: [String])] {
        let dump = try #require(
            try JSONSerialization.jsonObject(with: Data(PersistBench._dumpHelp().utf8)) as? [String: Any])
        let root = try #require(dump["command"] as? [String: Any])
        let commands = try #require(root["subcommands"] as? [[String: Any]])
        var found: [(String, String, [String])] = []
        for command in commands {
            guard let name = command["commandName"] as? String, !name.hasPrefix("_") else { continue }
            let arguments = command["arguments"] as? [[String: Any]] ?? []
            let positionals = arguments.filter { $0["kind"] as? String == "positional" }.map { _ in "/nonexistent" }
            for argument in arguments where argument["kind"] as? String == "option" {
                guard let preferred = argument["preferredName"] as? [String: Any],
                    let long = preferred["name"] as? String
                else { continue }
                found.append((name, "--" + long, positionals))
            }
        }
        return found
    }

    @Test func everyOptionOfEveryCommandTakesExtremeValuesWithoutATrap() throws {
        let options = try Self.options()
        #expect(options.count >= 50, "\(options.count) options found")
        var driven = 0
        for (command, option, positionals) in options {
            for value in Self.extremes {
                // Parsing validates; nothing runs.
                _ = try? PersistBench.parseAsRoot([command, option, value] + positionals)
                driven += 1
            }
        }
        #expect(driven == options.count * Self.extremes.count)
        print(
            "OptionBoundsTests: \(options.count) options of \(Set(options.map(\.command)).count) commands, "
                + "\(driven) values driven")
    }

    /// The numbers and durations with a stated range, each refused past it (exit 2, one line naming the option).
    @Test(arguments: [
        (["run", "--time-box"], ["5200000h", "1e30", "8d", "0"]),
        (["run", "--floor-time"], ["5200000h", "1e30h", "0"]),
        (["run", "--time-budget"], ["5200000h", "1e30", "-1"]),
        (["run", "--fixture-time-budget"], ["1e30h", "-5"]),
        (["run", "--repetitions"], ["0", "-1", "1001", "9223372036854775807"]),
        (["run", "--batch-size"], ["0", "-1", "10000001"]),
        (["run", "--scales"], ["-5", "1e15", "0", "1e30", "nan"]),
        (["run", "--count", "--jobs"], ["0", "-1", "65"]),
        (["crash", "--kills"], ["-1", "100001", "9223372036854775807"]),
        (["crash", "--power-loss"], ["-1", "100001"]),
        (["crash", "--faults"], ["-1", "100001"]),
        (["crash", "--corruptions"], ["-1", "100001"]),
        (["crash", "--transactions"], ["0", "100001"]),
        (["crash", "--max-delay"], ["-1", "100000000000", "9223372036854775807"]),
        (["crash", "--scale"], ["100G", "0", "-1", "11M"]),
        (["check", "--base", "HEAD", "--power-time"], ["1e30h", "-1"]),
    ])
    func aNumberPastItsRangeIsRefused(command: [String], values: [String]) throws {
        let option = try #require(command.last)
        for value in values {
            let (status, line) = try #require(answer(to: command + [value]), "\(command) \(value) was accepted")
            #expect(status == 2, "\(command) \(value): \(status)")
            #expect(line.contains(option) || line.contains("scale"), "\(command) \(value): \(line)")
        }
    }

    @Test func optionsThatDoNothingInTheirModeAreRefused() throws {
        let resume = try #require(answer(to: ["run", "--resume", "results/ci-baseline", "--scales", "1k"]))
        #expect(resume.status == 2 && resume.line.contains("--resume continues a run with its own options: --scales"))
        // Every option that would change the run is named, flags and the matrix's group included, in their order.
        let several = ["--stores", "lmdb", "--seed", "7", "--keep-stores", "--time-budget", "5m", "--jobs", "1"]
        let named = try #require(answer(to: ["run", "--resume", "results/ci-baseline"] + several))
        #expect(named.line.contains("options: --stores, --seed, --time-budget, --keep-stores, --jobs would change"))
        // A default given explicitly changes nothing and is not refused; --strict is the resumed run's own.
        let defaults = ["--seed", "\(RunConfiguration.defaultSeed)", "--time-budget", "10m", "--strict", "--dry-run"]
        let accepted = answer(to: ["run", "--resume", "results/no-such-run"] + defaults)
        #expect(accepted?.line.contains("--resume continues") != true, "\(String(describing: accepted))")
        let readers = try #require(answer(to: ["run", "--readers", "1,2", "--workloads", "get"]))
        #expect(readers.status == 2 && readers.line.contains("--readers sets the reader threads"))
    }
}
