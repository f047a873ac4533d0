import Foundation

/// A counted run (`run --count`) in shares at once, each a scheduler (`Runner`) of a share of the stores (dealt in
/// turn) on a thread of this process, each in its own directory under the run's parts/, then joined into one run.
///
/// Counts do not depend on what else the machine runs, so the counted matrix of CI's check takes half the wall time on
/// two cores. Each share's cells run in child processes as every cell does; only the scheduling is shared.
package enum CountedShares {
    /// The stores of each share: `stores` dealt in turn into at most `jobs` shares.
    package static func shares<Element>(of stores: [Element], jobs: Int) -> [[Element]] {
        let jobs = max(jobs, 1)
        return (0..<min(jobs, stores.count)).map { share in
            stores.enumerated().filter { $0.offset % jobs == share }.map(\.element)
        }
    }

    /// Runs `configuration` (counted) in `jobs` shares and returns the joined run: its cells share by share, in each
    /// share's order.
    ///
    /// `share` runs one share's configuration of its stores in its directory, on the share's thread. Throws, naming the
    /// share's stores, when a share's run stops.
    package static func run(
        _ configuration: RunConfiguration, stores: [StoreKind], environment: RunEnvironment, jobs: Int,
        partsDirectory: URL,
        share run: @escaping @Sendable (RunConfiguration, [StoreKind], URL) throws -> RunResults
    ) throws -> RunResults {
        let started = Date()
        let shares = Self.shares(of: stores, jobs: jobs)
        let outcomes = Outcomes(count: shares.count)
        let group = DispatchGroup()
        for (index, kinds) in shares.enumerated() {
            let share = {
                var share = configuration
                share.stores = kinds.map(\.name)
                return share
            }()
            let directory = partsDirectory.appendingPathComponent("\(index + 1)")
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                do {
                    try FileSystem.makeDirectory(directory)
                    outcomes.set(index, .success(try run(share, kinds, directory)))
                } catch {
                    outcomes.set(
                        index,
                        .failure(
                            BenchError(
                                "the counting share of \(share.stores.joined(separator: ", ")) stopped: "
                                    + "\(FileSystem.describe(error)); its log: \(directory.path)/console.txt")))
                }
            }
        }
        group.wait()
        var joined = RunResults(environment: environment, configuration: configuration, startedAt: started)
        for outcome in outcomes.all { joined.cells += try outcome.get().cells }
        joined.finishedAt = Date()
        return joined
    }

    /// Each share's outcome, set from its thread.
    private final class Outcomes: @unchecked Sendable {
        private let lock = NSLock()
        private var outcomes: [Result<RunResults, BenchError>?]

        init(count: Int) { outcomes = Array(repeating: nil, count: count) }

        func set(_ index: Int, _ outcome: Result<RunResults, BenchError>) {
            lock.withLock { outcomes[index] = outcome }
        }

        var all: [Result<RunResults, BenchError>] {
            lock.withLock {
                outcomes.map { $0 ?? .failure(BenchError("a counting share did not finish")) }
            }
        }
    }
}
