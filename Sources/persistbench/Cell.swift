import ArgumentParser
import Foundation
import PersistenceBench

/// The child side of the runner: one cell in this process. Not for users; `run` starts it.
struct Cell: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "_cell", abstract: "Run one cell (started by `persistbench run`).", shouldDisplay: false)

    @Argument(help: "The job file the runner wrote.")
    var job: String

    func run() throws {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: job)) } catch {
            throw ValidationError("cannot read job file '\(job)'")
        }
        guard let job = try? JSONDecoder().decode(CellJob.self, from: data) else {
            throw ValidationError("'\(self.job)' is not a cell job")
        }
        guard CellExecution.run(job, stores: allStores) else { throw ExitCode.failure }
    }
}
