import Foundation

/// A matrix, resolved to its stores and workloads, and the sink its results and events go to: what `run`,
/// `run --resume`, `run --count`, `check --base` and `check --counters` drive.
///
/// Every mode builds its schedulers (`Runner`) here, and reports through `sink` alone.
package struct RunSession: Sendable {
    package var configuration: RunConfiguration
    package let stores: [StoreKind]
    package let workloads: [any Workload]
    package let sink: any RunSink
    /// Earlier runs' cells (`run --estimate-from`), which estimate the run at its start and what is left as it goes.
    package var estimates: [[CellResult]] = []

    package init(configuration: RunConfiguration, stores: [StoreKind], workloads: [any Workload], sink: any RunSink) {
        self.configuration = configuration
        self.stores = stores
        self.workloads = workloads
        self.sink = sink
    }

    // MARK: - The timed run and its resumption

    /// Runs the matrix, its results and reports written to `output` after every cell; with `interrupted`, continues
    /// that run (its finished cells kept) on this machine.
    package func run(output: URL, resuming interrupted: RunResults? = nil) throws -> RunResults {
        let save = sink.saver(into: output)
        let runner: Runner
        if let interrupted {
            let machine = environment(stores, output: output)
            let builds = RunEnvironment.buildDifferences(interrupted.environment, machine)
            guard builds.isEmpty else {
                throw BadInput(
                    "cannot resume '\(output.path)' here: the run's and this build's "
                        + builds.joined(separator: ", ") + " (the commit is the checkout's this runs in); a run is "
                        + "one build (merge refuses mixes), so resume it from a checkout of "
                        + "\(interrupted.environment.gitCommit) with a build of that checkout")
            }
            runner = try Runner(
                resuming: interrupted, on: machine, stores: stores, workloads: workloads, outputDirectory: output,
                executable: try Executable.path(), observer: try sink.observer(log: nil), save: save)
            sink.event(
                .resumed(
                    output: output, cellsKept: runner.cellsKept, machine: RunResults.machineName(machine),
                    groupsRunAgain: runner.groupsRunAgain))
        } else {
            // Before the runner, whose start is the run's: hashing this build to key its fixtures is no cell's time.
            let estimate = estimates.isEmpty ? nil : estimate(from: estimates)
            if let estimate, let total = estimate.total {
                sink.event(
                    .estimated(
                        seconds: total, cells: estimate.cells.count, measuredCells: estimate.measuredCells,
                        fixturesHeld: estimate.fixturesHeld, fixturesNeeded: estimate.fixturesNeeded))
            }
            runner = try self.runner(configuration, stores: stores, output: output, observer: sink.observer(log: nil))
            // As the run goes, a fixture the cache held at its start is no load either.
            if let estimate { runner.cached = estimate.cached }
        }
        var results = try runner.run()
        if let differences = askAgain(results) {
            results.answerDifferences = differences
            try save(results)
        }
        sink.event(.finished(results, output: output))
        return results
    }

    /// The scheduler of `configuration`'s cells of `stores` on this machine, writing through the sink into `output`.
    private func runner(
        _ configuration: RunConfiguration, stores: [StoreKind], output: URL, observer: any RunObserver
    ) throws -> Runner {
        let runner = try Runner(
            configuration: configuration, stores: stores, workloads: workloads,
            environment: environment(stores, output: output), outputDirectory: output,
            executable: try Executable.path(),
            observer: observer, save: sink.saver(into: output))
        runner.prior = estimates
        return runner
    }

    /// This machine and build, as a run of `stores` into `output` records them.
    func environment(_ stores: [StoreKind], output: URL?) -> RunEnvironment {
        RunEnvironment.current(stores: stores, arguments: CommandLine.arguments, output: output)
    }

    /// Where stores disagreed, each group asked again in this process to name the first answer that differs
    /// (`AnswerDifference`); nil where every group agreed.
    private func askAgain(_ results: RunResults) -> [AnswerDifference]? {
        let mismatches = results.digestChecks.filter { !$0.agreed && $0.compared }
        guard !mismatches.isEmpty else { return nil }
        sink.event(.askingAgain(groups: mismatches.count))
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
            "persistbench-answers-\(UUID().uuidString)")
        return mismatches.compactMap {
            AnswerDifference.find($0, stores: stores, configuration: results.configuration, scratch: scratch)
        }
    }

    // MARK: - The counted run

    /// A counted run in `jobs` shares at once (`CountedShares`), each share's log and reports under OUT/parts/,
    /// joined into one run in `output`.
    package func count(output: URL, jobs: Int) throws -> RunResults {
        guard CountedShares.shares(of: stores, jobs: jobs).count > 1 else { return try run(output: output) }
        let partsDirectory = output.appendingPathComponent("parts")
        try FileSystem.remove(partsDirectory)
        sink.event(.countingInShares(stores: stores.count, shares: min(jobs, stores.count), parts: partsDirectory))
        let joined = try CountedShares.run(
            configuration, stores: stores, environment: environment(stores, output: output), jobs: jobs,
            partsDirectory: partsDirectory
        ) { share, kinds, directory in
            let observer = try sink.observer(log: directory.appendingPathComponent("console.txt"))
            return try runner(share, stores: kinds, output: directory, observer: observer).run()
        }
        // Each share kept its cells' stacks and flame graphs in its own flames/: the run's are all of them.
        let shares = try FileManager.default.contentsOfDirectory(atPath: partsDirectory.path)
        try FlameFiles.gather(from: shares.map { partsDirectory.appendingPathComponent($0) }, into: output)
        try sink.saver(into: output)(joined)
        try FileSystem.remove(partsDirectory)
        sink.event(.finished(joined, output: output))
        return joined
    }
}
