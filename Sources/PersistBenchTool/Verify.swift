import ArgumentParser
import Foundation
import PersistenceBench
import StoreCatalog

struct Verify: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check a kept store's files with the store's own integrity check.",
        discussion: """
            Checks a store left by `run --keep-stores` or `crash` without writing to it: its files where they are, \
            then a copy opened in a child process by the store's integrity check. Exit status: 0 when it is sound, \
            3 when it is damaged (each line names the file and, where the check can tell, the offset or page), 2 on \
            bad input.
            """)

    @Option(help: "The store kind that wrote DIR (see `persistbench list`).")
    var store: String

    @Argument(help: "The store's directory.")
    var directory: String

    func run() throws {
        let kinds = try badInput { try StoreCatalog.stores(named: store) }
        guard kinds.count == 1, let kind = kinds.first else {
            throw ValidationError("--store names one store, not the \(kinds.count) of '\(store)'")
        }
        let verification = try StoreVerification(
            kind, directory: URL(fileURLWithPath: directory), executable: try Executable.path())
        for note in verification.recovered { print("\(directory): recovered: \(note)") }
        guard verification.problems.isEmpty else {
            for problem in verification.problems {
                try? FileHandle.standardError.write(contentsOf: Data("\(directory): damaged: \(problem)\n".utf8))
            }
            throw ExitCode(3)
        }
        print("\(directory): \(store) store sound, \(verification.items) items")
    }
}
