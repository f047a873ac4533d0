import Foundation

/// A run of the same build and seed made under `run --memory-limit`, joined to another run (`merge --capped`) for
/// its budget table: which cells finished under the cap and which were killed at it.
///
/// A sweep's timed runs and the runs under each cap are separate runs (a cap changes what every cell measures), judged
/// in one table.
package struct CappedRun: Codable, Equatable, Sendable {
    package var memoryLimitBytes: Int64
    /// The directory it was joined from, as `merge` was given it, and its command.
    package var source: String
    package var command: String
    /// Whether it finished; a run stopped part-way gives its column from the cells it ran.
    package var finished: Bool
    /// Its cells without their measurements (store, workload, scale, repetition, status and reason), but for a cell
    /// stopped from outside the run, which is not a result.
    package var cells: [CellResult]
}

extension RunResults {
    /// `capped`, made under a memory limit with this run's build and seed, as a `CappedRun` of it.
    ///
    /// Throws a message naming what differs otherwise.
    package func joining(capped: RunResults, source: String) throws -> CappedRun {
        guard let limit = capped.configuration.memoryLimitBytes else {
            throw BenchError("\(source) was not run under a memory limit (run --memory-limit)")
        }
        var differences = RunEnvironment.buildDifferences(environment, capped.environment)
        if configuration.seed != capped.configuration.seed {
            differences.append("seeds differ (\(configuration.seed) and \(capped.configuration.seed))")
        }
        guard differences.isEmpty else {
            throw BenchError("\(source) is not of this run's build and seed: " + differences.joined(separator: "; "))
        }
        return CappedRun(
            memoryLimitBytes: limit, source: source, command: capped.environment.command,
            finished: capped.finishedAt != nil,
            cells: capped.cells.filter { $0.interrupted != true }.map {
                CellResult($0.id, status: $0.status, reason: $0.reason)
            })
    }
}
