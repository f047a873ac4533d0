import ArgumentParser
import Foundation
import PersistenceBench
import StoreCatalog

/// Every store this build knows, in the order reports list them.
let allStores = StoreCatalog.all

@main
struct PersistBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "persistbench",
        abstract: "Identical, verified workloads against Swift persistence strategies: throughput, latency, memory.",
        subcommands: [
            Run.self, Merge.self, List.self, Report.self, Export.self, Compare.self, Check.self, Keys.self, Crash.self,
            Verify.self,
            Child.self,
        ])

    /// Bad input exits with status 2 and a message naming it; runtime failures exit with 1.
    static func main() {
        do {
            // A child skips the parser: building the command tree took 6 of a cell's 80 ms of fixed cost, paid by
            // each of the default run's 588 children.
            let arguments = CommandLine.arguments
            if arguments.count == 3, arguments[1] == ChildExecution.commandName {
                try Child.run(requestPath: arguments[2])
                return
            }
            var command = try parseAsRoot()
            try command.run()
        } catch let error as OutputPath.Unwritable {
            try? FileHandle.standardError.write(contentsOf: Data("Error: \(error)\n".utf8))
            Foundation.exit(2)
        } catch {
            if exitCode(for: error) == .validationFailure {
                try? FileHandle.standardError.write(contentsOf: Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(2)
            }
            // A file the system refused (a disk that filled, a directory that went away): its path and the
            // system's reason in one line, not Foundation's error dictionary.
            if error is CocoaError {
                try? FileHandle.standardError.write(contentsOf: Data("Error: \(Runner.describe(error))\n".utf8))
                Foundation.exit(1)
            }
            exit(withError: error)
        }
    }
}
