import ArgumentParser
import Foundation
import PersistenceBench

/// The child side of every child the tool starts: a cell, a fixture's load, a crash check's writer or verifier.
///
/// Not for users; `run` and `crash` start it.
struct Child: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: ChildExecution.commandName,
        abstract: "Run one child's request (started by `persistbench run` and `crash`).", shouldDisplay: false)

    @Argument(help: "The request file the parent wrote.")
    var request: String

    func run() throws { try Self.run(requestPath: request) }

    /// `main` calls this directly for `_child REQUEST`, without the parser.
    static func run(requestPath: String) throws {
        guard try ChildExecution.run(requestAt: requestPath, stores: allStores) else { throw ExitCode.failure }
    }
}
