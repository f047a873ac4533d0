import ArgumentParser
import Foundation
import PersistenceBench
import Reports

struct Findings: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Render README's findings from docs/findings.json and the committed runs, or check them.",
        discussion: """
            Without a flag, prints README's findings section; --write puts it in README.md and docs/findings.md \
            between their markers; --check exits 1 naming each figure the published text states otherwise.
            """)

    @Option(help: ArgumentHelp("The repository's root.", valueName: "DIR"))
    var root = "."

    @Flag(help: "Write nothing: exit 1 where README.md or docs/findings.md differs from what the runs give.")
    var check = false

    @Flag(help: "Rewrite the findings parts of README.md and docs/findings.md.")
    var write = false

    func validate() throws {
        guard !(check && write) else { throw ValidationError("--check and --write: choose one") }
    }

    func run() throws {
        let (lines, current) = try FindingPages.publish(
            root: URL(fileURLWithPath: root), check ? .check : write ? .write : .print)
        lines.forEach { print($0) }
        if !current { throw ExitCode(1) }
    }
}
