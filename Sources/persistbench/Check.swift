import ArgumentParser
import Foundation
import PersistenceBench
import Reports

struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check a run against a baseline: exit 1 on a regression.",
        discussion: """
            With --current, judges that finished run; without it, runs the baseline's own matrix now (its stores, \
            workloads, scales, repetitions, seed and budgets) into --out, then judges it. Writes a Markdown \
            summary to --summary (default: check.md in the current run's directory; and appends it to \
            $GITHUB_STEP_SUMMARY when that is set). The bands depend on whether both runs come from one machine \
            (the same boot), one machine class, or not. Exit status: 0 when nothing regressed, 1 on a regression \
            (a store, a cell or a workload slower beyond its band, every store slower beyond the typical band, \
            more waits per operation, memory beyond its band, more bytes on disk, a changed or disagreeing digest, \
            a cell that no longer finishes), 2 on bad input.
            """)

    @Option(help: "The baseline: a run's directory or its results.json.")
    var baseline: String

    @Option(help: "A finished run to judge (directory or results.json). Default: run the baseline's matrix now.")
    var current: String?

    @Option(help: "Where the run made now is written (without --current).")
    var out: String = "results/check"

    @Option(help: "Where the Markdown summary is written. Default: check.md in the current run's directory.")
    var summary: String?

    func validate() throws {
        let base = try ResultsFile.load(baseline)
        if current == nil {
            let unknownStores = base.configuration.stores.filter { name in !allStores.contains { $0.name == name } }
            let unknownWorkloads = base.configuration.workloads.filter { WorkloadCatalog.workload(named: $0) == nil }
            guard unknownStores.isEmpty, unknownWorkloads.isEmpty else {
                throw ValidationError(
                    "the baseline's matrix names what this build does not have: "
                        + (unknownStores + unknownWorkloads).joined(separator: ", "))
            }
        }
    }

    /// The current run's directory: --current's (or the directory of its results.json), else --out.
    private var currentDirectory: URL {
        guard let current else { return URL(fileURLWithPath: out) }
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: current, isDirectory: &isDirectory)
        let url = URL(fileURLWithPath: current)
        return exists && isDirectory.boolValue ? url : url.deletingLastPathComponent()
    }

    private var summaryURL: URL {
        summary.map { URL(fileURLWithPath: $0) } ?? currentDirectory.appendingPathComponent("check.md")
    }

    func run() throws {
        if current == nil { try OutputPath.requireDirectory(out, option: "--out") }
        try OutputPath.requireFile(summaryURL.path, option: summary == nil ? "the summary (check.md)" : "--summary")
        let base = try ResultsFile.load(baseline)
        let now: RunResults
        let currentLabel: String
        if let current {
            now = try ResultsFile.load(current)
            currentLabel = current
        } else {
            now = try Run.execute(base.configuration, output: currentDirectory)
            currentLabel = out
        }
        let comparison = try ResultsFile.compare(base, now)
        let markdown = ComparisonReport.render(comparison, baseline: baseline, current: currentLabel)
        try FileSystem.writeAtomically(Data(markdown.utf8), to: summaryURL)
        if let jobSummary = ProcessInfo.processInfo.environment["GITHUB_STEP_SUMMARY"], !jobSummary.isEmpty,
            let handle = FileHandle(forWritingAtPath: jobSummary)
        {
            handle.seekToEndOfFile()
            handle.write(Data(markdown.utf8))
            handle.closeFile()
        }
        let regressions = comparison.regressions
        let boundLine = comparison.bounds.map {
            "\($0.bound.rawValue) ×\(RunComparison.format($0.typicalRatio)) after its probe ×"
                + RunComparison.format($0.probeRatio)
        }.joined(separator: ", ")
        let storeLine = comparison.stores.map { "\($0.store) ×\(RunComparison.format($0.relativeRatio))" }
            .joined(separator: ", ")
        print("Typical store's time by bound (\(comparison.rule.name)): \(boundLine)")
        print(
            "Each store relative to its workloads' typical stores (band ×\(RunComparison.format(comparison.rule.storeBand))): "
                + storeLine)
        print("Compared \(comparison.cells.count) cells; summary in \(summaryURL.path)")
        if regressions.isEmpty {
            print("PASS: no regression against \(baseline)")
        } else {
            print("FAIL: \(regressions.count) regression(s) against \(baseline):")
            for line in regressions { print("  \(line)") }
            throw ExitCode.failure
        }
    }
}
