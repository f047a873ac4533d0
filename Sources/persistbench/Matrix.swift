import ArgumentParser
import Foundation
import PersistenceBench
import Reports
import StoreCatalog

/// A configuration's store and workload names resolved to this build's kinds, once, for every command that runs
/// or plans it.
struct Matrix {
    var configuration: RunConfiguration
    let stores: [StoreKind]
    let workloads: [any Workload]

    init(configuration: RunConfiguration, stores: [StoreKind], workloads: [any Workload]) {
        self.configuration = configuration
        self.stores = stores
        self.workloads = workloads
    }

    /// The kinds a recorded `configuration` names (a run to resume, a baseline). Throws, naming every name this
    /// build does not have, as bad input of `source` ("the run to resume", "the baseline's matrix").
    init(_ configuration: RunConfiguration, of source: String) throws {
        var unknown: [String] = []
        let stores = configuration.stores.compactMap { name in
            let kind = StoreCatalog.kind(named: name)
            if kind == nil { unknown.append(name) }
            return kind
        }
        let workloads = configuration.workloads.compactMap { name in
            let workload = WorkloadCatalog.workload(named: name)
            if workload == nil { unknown.append(name) }
            return workload
        }
        guard unknown.isEmpty else {
            throw ValidationError("\(source) names what this build does not have: \(unknown.joined(separator: ", "))")
        }
        self.init(configuration: configuration, stores: stores, workloads: workloads)
    }

    /// Runs the matrix, writing the reports to `output` after every cell;
    /// prints where they are, and any digest mismatch, error and DNF.
    func run(output: URL, resuming interrupted: RunResults? = nil) throws -> RunResults {
        let writer = RunningReportWriter(directory: output)
        let save: (RunResults) throws -> Void = { try writer.write($0) }
        let runner: Runner
        if let interrupted {
            let machine = RunEnvironment.current(stores: stores, arguments: CommandLine.arguments)
            let builds = RunEnvironment.buildDifferences(interrupted.environment, machine)
            guard builds.isEmpty else {
                throw ValidationError(
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
                environment: RunEnvironment.current(stores: stores, arguments: CommandLine.arguments),
                outputDirectory: output, executable: try Executable.path(), observer: ConsoleProgress(), save: save)
        }
        let results = try runner.run()
        Self.printOutcome(results, output: output)
        return results
    }

    /// Where the reports are, and any digest mismatch, error and DNF.
    static func printOutcome(_ results: RunResults, output: URL) {
        print("Wrote \(output.path)/report.md, results.csv and results.json")
        let mismatches = results.digestChecks.filter { !$0.agreed }
        for check in mismatches {
            print("DIGEST MISMATCH: \(check.workload) at \(check.scale): \(check.digestsDescription)")
        }
        let errors = results.cells.filter { $0.status == .error }
        let unfinished = results.cells.filter { $0.status == .dnf }
        if !errors.isEmpty { print("\(errors.count) cell(s) failed with an error; see report.md") }
        if !unfinished.isEmpty { print("\(unfinished.count) cell(s) did not finish (DNF); see report.md") }
        if mismatches.isEmpty { print("Digests agree: \(results.digestChecks.count) (workload, scale) groups checked") }
    }

    /// A counted run in `jobs` processes at once, each running a share of the stores (dealt in turn) as a run of its
    /// own under OUT/parts/, then merged into one run in `output`. Counts do not depend on what else the machine
    /// runs, so the counted matrix of CI's check takes half the wall time on two cores.
    func count(output: URL, jobs: Int) throws -> RunResults {
        let shares = (0..<min(jobs, configuration.stores.count)).map { share in
            configuration.stores.enumerated().filter { $0.offset % jobs == share }.map(\.element)
        }
        guard shares.count > 1 else { return try run(output: output) }
        let environment = RunEnvironment.current(stores: stores, arguments: CommandLine.arguments)
        let partsDirectory = output.appendingPathComponent("parts")
        try FileSystem.remove(partsDirectory)
        print(
            "Counting \(configuration.stores.count) stores in \(shares.count) processes; their logs are under "
                + "\(partsDirectory.path)/")
        var processes: [(directory: URL, process: Process)] = []
        for (index, stores) in shares.enumerated() {
            // Each share is a run of its own, started as the resumption of a run with no finished cell.
            var share = configuration
            share.stores = stores
            let directory = partsDirectory.appendingPathComponent("\(index + 1)")
            try RunningReportWriter(directory: directory).write(
                RunResults(environment: environment, configuration: share, startedAt: Date()))
            let process = Process()
            process.executableURL = URL(fileURLWithPath: try Executable.path())
            process.arguments = ["run", "--resume", directory.path]
            let log = directory.appendingPathComponent("console.txt")
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            process.standardOutput = try FileHandle(forWritingTo: log)
            process.standardError = process.standardOutput
            try process.run()
            processes.append((directory, process))
        }
        var merged = RunResults(environment: environment, configuration: configuration, startedAt: Date())
        for (directory, process) in processes {
            process.waitUntilExit()
            let part = try RunResults.load(from: directory.appendingPathComponent("results.json"))
            guard part.finishedAt != nil else {
                throw BenchError(
                    "the counting process for \(part.configuration.stores.joined(separator: ", ")) stopped (exit "
                        + "status \(process.terminationStatus)); its log: \(directory.path)/console.txt")
            }
            merged.cells += part.cells
        }
        merged.finishedAt = Date()
        try RunningReportWriter(directory: output).write(merged)
        try FileSystem.remove(partsDirectory)
        Self.printOutcome(merged, output: output)
        return merged
    }
}
