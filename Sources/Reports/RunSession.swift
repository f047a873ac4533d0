import Foundation
import PersistenceBench

/// A matrix run with its reports written as it goes, and what it found printed: what `run`, `run --resume`,
/// `run --count` and `check --counters` do once their names are resolved to stores and workloads.
package struct RunSession {
    package var configuration: RunConfiguration
    package let stores: [StoreKind]
    package let workloads: [any Workload]

    package init(configuration: RunConfiguration, stores: [StoreKind], workloads: [any Workload]) {
        self.configuration = configuration
        self.stores = stores
        self.workloads = workloads
    }

    /// Runs the matrix, writing the reports to `output` after every cell;
    /// prints where they are, and any digest mismatch, error and DNF.
    package func run(output: URL, resuming interrupted: RunResults? = nil) throws -> RunResults {
        let writer = RunningReportWriter(directory: output)
        let save: (RunResults) throws -> Void = { try writer.write($0) }
        let runner: Runner
        if let interrupted {
            let machine = RunEnvironment.current(stores: stores, arguments: CommandLine.arguments, output: output)
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
                executable: try Executable.path(), observer: ConsoleProgress(), save: save)
            print("Resuming \(output.path): \(runner.cellsKept) finished cells kept")
            if !runner.groupsRunAgain.isEmpty {
                print(
                    "This machine (\(RunResults.machineName(machine))) is not the one that "
                        + "began " + runner.groupsRunAgain.map(\.description).joined(separator: ", ")
                        + ": each runs again here whole, so that its stores are compared on one machine")
            }
        } else {
            runner = try Runner(
                configuration: configuration, stores: stores, workloads: workloads,
                environment: RunEnvironment.current(stores: stores, arguments: CommandLine.arguments, output: output),
                outputDirectory: output, executable: try Executable.path(), observer: ConsoleProgress(), save: save)
        }
        var results = try runner.run()
        if let differences = askAgain(results) {
            results.answerDifferences = differences
            try writer.write(results)
        }
        Self.printOutcome(results, output: output)
        return results
    }

    /// Where stores disagreed, each group asked again in this process to name the first answer that differs
    /// (`AnswerDifference`); nil where every group agreed.
    private func askAgain(_ results: RunResults) -> [AnswerDifference]? {
        let mismatches = results.digestChecks.filter { !$0.agreed && $0.compared }
        guard !mismatches.isEmpty else { return nil }
        print(
            "Asking \(mismatches.count) disagreeing group(s) again, each answer noted, to find the first that differs")
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
            "persistbench-answers-\(UUID().uuidString)")
        return mismatches.compactMap {
            AnswerDifference.find($0, stores: stores, configuration: results.configuration, scratch: scratch)
        }
    }

    /// Where the reports are, and any digest mismatch, error and DNF.
    package static func printOutcome(_ results: RunResults, output: URL) {
        print("Wrote \(output.path)/report.md, results.csv and results.json")
        let mismatches = results.digestChecks.filter { !$0.agreed }
        for check in mismatches {
            print("DIGEST MISMATCH: \(check.workload) at \(check.scale): \(check.digestsDescription)")
            if let difference = results.difference(in: check) { print("  " + difference.summary) }
        }
        let errors = results.cells.filter { $0.status == .error }
        let unfinished = results.cells.filter { $0.status == .dnf }
        if !errors.isEmpty { print("\(errors.count) cell(s) failed with an error; see report.md") }
        if !unfinished.isEmpty { print("\(unfinished.count) cell(s) did not finish (DNF); see report.md") }
        guard mismatches.isEmpty else { return }
        print(digestSummary(results.digestChecks))
    }

    /// What the digest check compared, in one line: the groups whose stores' answers were held against each other,
    /// and those that had one store's cells (not compared) or none that finished.
    static func digestSummary(_ checks: [DigestCheck]) -> String {
        let compared = checks.filter(\.compared).count
        let alone = checks.count - compared
        guard !checks.isEmpty else { return "No digests compared: no cell finished" }
        return "Digests agree: \(compared) (workload, scale) group\(compared == 1 ? "" : "s") compared across stores"
            + (alone == 0
                ? ""
                : "; \(alone) with one store's cells only, not compared (its repetitions agree with each other)")
    }

    /// A counted run in `jobs` shares at once (`CountedShares`), each share's log and reports under OUT/parts/,
    /// joined into one run in `output`.
    package func count(output: URL, jobs: Int) throws -> RunResults {
        guard CountedShares.shares(of: stores, jobs: jobs).count > 1 else { return try run(output: output) }
        let partsDirectory = output.appendingPathComponent("parts")
        try FileSystem.remove(partsDirectory)
        print(
            "Counting \(stores.count) stores in \(min(jobs, stores.count)) shares at once; their logs are under "
                + "\(partsDirectory.path)/")
        let joined = try CountedShares.run(
            configuration, stores: stores, workloads: workloads,
            environment: RunEnvironment.current(stores: stores, arguments: CommandLine.arguments, output: output),
            partsDirectory: partsDirectory, executable: try Executable.path(), jobs: jobs
        ) { directory in
            let writer = RunningReportWriter(directory: directory)
            let log = try ConsoleProgress(log: directory.appendingPathComponent("console.txt"))
            return CountedShares.ShareIO(observer: log) { try writer.write($0) }
        }
        // Each share kept its cells' stacks and flame graphs in its own flames/: the run's are all of them.
        let shares = try FileManager.default.contentsOfDirectory(atPath: partsDirectory.path)
        try FlameFiles.gather(from: shares.map { partsDirectory.appendingPathComponent($0) }, into: output)
        try RunningReportWriter(directory: output).write(joined)
        try FileSystem.remove(partsDirectory)
        Self.printOutcome(joined, output: output)
        return joined
    }
}
