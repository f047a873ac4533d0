import ArgumentParser
import Foundation
import PersistenceBench
import Reports

struct Merge: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Join the shards of one run (`run --shard K/N`), made on one machine or many, into one run.",
        discussion: """
            Writes results.json, the reports and the charts to --out, each cell keeping the shard (the machine) that \
            measured it. Refuses shards of different builds, seeds or options, and a missing, repeated or unfinished \
            one. Exit status: 0 when every digest agrees, 1 on a mismatch or a cell error, 2 on bad input.
            """)

    @Argument(help: "Every shard's directory (or its results.json).")
    var shards: [String]

    @Option(help: "Where the merged run is written: new, empty, or an earlier run's; never one of the shards.")
    var out: String

    @Flag(help: replaceHelp)
    var replace = false

    @Option(
        help: ArgumentHelp(
            "A run of the same build and seed made under --memory-limit (repeatable): the budget table gets a column "
                + "for its cap, where each store's workloads all finished under it.", valueName: "dir"))
    var capped: [String] = []

    func run() throws {
        let merged = try RunResults.merging(
            shards: shards, capped: capped, into: out,
            command: CommandLine.arguments.map(RunEnvironment.shellQuoted).joined(separator: " "))
        let output = URL(fileURLWithPath: out)
        let claim = try OutputDirectory(out, option: "--out", use: .fresh(replacing: replace))
        defer { claim.release() }
        try RunningReportWriter(directory: output).write(merged)
        print(
            "Merged \(merged.shards?.count ?? 0) shards, \(merged.cells.count) cells, from "
                + Set((merged.shards ?? []).map(\.environment.hostname)).sorted().joined(separator: ", "))
        ReportSink().event(.finished(merged, output: output))
        if merged.failed(strict: false) { throw ExitCode.failure }
    }
}
