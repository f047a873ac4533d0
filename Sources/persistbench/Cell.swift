import ArgumentParser
import Foundation
import PersistenceBench

/// The child side of the runner: one cell in this process. Not for users; `run` starts it.
struct Cell: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "_cell", abstract: "Run one cell (started by `persistbench run`).", shouldDisplay: false)

    @Argument(help: "The job file the runner wrote.")
    var job: String

    func run() throws { try Self.run(jobPath: job) }

    /// Runs the job in the file at `jobPath`; `main` calls this directly for `_cell JOB`, without the parser.
    static func run(jobPath: String) throws {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: jobPath)) } catch {
            throw ValidationError("cannot read job file '\(jobPath)'")
        }
        guard let job = try? JSONDecoder().decode(CellJob.self, from: data) else {
            throw ValidationError("'\(jobPath)' is not a cell job")
        }
        guard CellExecution.run(job, stores: allStores) else { throw ExitCode.failure }
    }
}
