import ArgumentParser
import Foundation
import PersistenceBench
import StoreCatalog

/// Every store this build knows, in the order reports list them: the catalogue's and those a package added
/// (`PersistBenchTool.main(adding:)`), read once they are all in.
var allStores: [StoreKind] { StoreCatalog.all }

struct PersistBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "persistbench",
        abstract: "Identical, verified workloads against Swift persistence strategies: throughput, latency, memory.",
        version: versionText,
        subcommands: [
            Run.self, Merge.self, List.self, Report.self, Findings.self, Export.self, Compare.self, Check.self,
            Keys.self, Crash.self, Verify.self,
        ])

    /// Bad input naming the commands when the first argument is a word that names none.
    static func requireKnownCommand(_ word: String?) throws {
        guard let word, !word.hasPrefix("-") else { return }
        let names = configuration.subcommands.map { $0._commandName }.filter { !$0.hasPrefix("_") }
        guard names.contains(word) || word == "help" else {
            throw BadInput("unknown command '\(word)'; the commands: \(names.joined(separator: ", ")), help")
        }
    }

    /// What `--version` prints: the results format this build writes, the compiler that built it and the engines its
    /// stores link, as `results.json` records them.
    static var versionText: String {
        var engines: [String] = []
        for kind in StoreCatalog.builtIn where !engines.contains(kind.engine()) { engines.append(kind.engine()) }
        return "persistbench: results schema \(RunResults.currentSchemaVersion), built by "
            + "\(RunEnvironment.compilerVersion); engines: \(engines.joined(separator: ", "))"
    }

    /// Runs the command with `stores` added to the catalogue's.
    ///
    /// Bad input (a bad added store too) exits with status 2 and one line naming it; runtime failures exit with 1.
    static func main(adding stores: [StoreKind]) {
        // A child skips the parser: building the command tree took 6 of a cell's 80 ms of fixed cost, paid by each
        // of the default run's 588 children.
        let arguments = CommandLine.arguments
        do {
            try StoreCatalog.add(stores)
            // The child side of every child the tool starts (a cell, a fixture's load, a crash check's writer).
            if arguments.count == 3, arguments[1] == ChildExecution.commandName {
                guard try ChildExecution.run(requestAt: arguments[2], stores: allStores) else { throw ExitCode.failure }
                return
            }
            try requireKnownCommand(arguments.dropFirst().first)
            var command = try parseAsRoot()
            try command.run()
        } catch {
            guard let (status, line) = answer(to: error) else { exit(withError: error) }
            try? FileHandle.standardError.write(contentsOf: Data((line + "\n").utf8))
            Foundation.exit(status)
        }
    }

    /// The exit status and the one line every command answers an error with that is not its own exit status:
    /// bad input (2: an unknown name, a bad value, a path it cannot write, a file it cannot read) and a file the
    /// system refused while it worked (1: a disk that filled, a directory that went away), by path and the system's
    /// reason.
    ///
    /// Nil for the rest (help asked for, an exit status the command chose), which the parser answers.
    static func answer(to error: any Error) -> (status: Int32, line: String)? {
        switch error {
        case let error as BadInput: return (2, "Error: \(error)")
        case is CocoaError: return (1, "Error: \(FileSystem.describe(error))")
        default:
            guard exitCode(for: error) == .validationFailure else { return nil }
            let message = message(for: error)
            return (2, "Error: " + reworded(message.split(separator: "\n").first.map(String.init) ?? message))
        }
    }

    /// The parser's line for a typed option's bad value ("The value 'x' is invalid for '--o <v>': reason", the
    /// reason being its type's: `OptionValue`) in the form every other bad value takes: "invalid --o 'x': reason".
    static func reworded(_ line: String) -> String {
        let opening = "The value '"
        guard line.hasPrefix(opening), let middle = line.range(of: "' is invalid for '"),
            let end = line.range(of: "': ", range: middle.upperBound..<line.endIndex)
        else { return line }
        let value = line[opening.endIndex..<middle.lowerBound]
        let option = line[middle.upperBound..<end.lowerBound].prefix { $0 != " " }
        return "invalid \(option) '\(value)': " + line[end.upperBound...]
    }
}
