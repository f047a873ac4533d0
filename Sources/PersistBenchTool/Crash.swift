import ArgumentParser
import Foundation
import PersistenceBench
import Reports
import StoreCatalog

struct Crash: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Kill a writer, cut its power, fail its writes; check what each store keeps.",
        discussion: """
            Per store: --kills writers killed with SIGKILL at a seeded moment; with --power-loss N, N crash states \
            rebuilt from a recorded writer's writes and flushes (what a power cut may leave); with --faults N, N \
            seeded ENOSPC/EIO failures of a write or flush; with --corruptions N, N byte flips or truncations of \
            the closed store (measured, never a failure); with --crashes 2, as many two-crash states besides: a \
            power-loss state reopened (its recovery run), a seeded number of further commits, and a second cut by \
            power loss (some during the open's own recovery) or by a kill. Each trial reopens the store in a fresh process, runs \
            its integrity check and compares every item with the committed states. Writes crash.json and crash.md \
            to --out after every store. Exit status: 0 when every store kept its promise, 1 when one broke it or \
            could not be checked, 2 on bad input.
            """)

    @Option(
        help:
            "Comma-separated stores. Default: every store with a promise to check (not memory), but the one-mechanism variants."
    )
    var stores: String?

    @Option(parsing: .unconditional, help: "Kills per store (0: none).")
    var kills = 200

    @Option(
        name: .customLong("power-loss"), parsing: .unconditional, help: "Power-loss crash states per store (0: none).")
    var powerLoss = 0

    @Option(
        parsing: .unconditional,
        help: """
            Crashes in a row: 1, or 2 to check as many two-crash states as --power-loss gives (each a power-loss \
            state reopened, written on and cut again) beside the single ones.
            """)
    var crashes = 1

    @Option(parsing: .unconditional, help: "Injected faults per store (0: none).")
    var faults = 0

    @Option(
        parsing: .unconditional,
        help: "Byte flips and truncations of the closed store per store (0: none); measured, never a failure.")
    var corruptions = 0

    @Option(
        parsing: .unconditional, help: .typed("Items each store starts with: 10k, 100k, 1M.", default: Self.scale),
        transform: ScaleOption.parse)
    var scale = Self.scale
    private static let scale = ScaleOption(Scale(records: 10_000))

    @Option(parsing: .unconditional, help: "Seed of the data, the transactions, the kill moments and the crash states.")
    var seed: UInt64 = RunConfiguration.defaultSeed

    @Option(
        parsing: .unconditional, help: "Transactions the recorded writer of the power-loss and fault checks commits.")
    var transactions = 24

    @Option(
        parsing: .unconditional,
        help: "A kill comes a seeded 0 to this many milliseconds after the writer opened the store.")
    var maxDelay = 200

    @Option(
        name: .customLong("new-files"),
        help: """
            When a new name (a created file or directory, a rename) survives a power cut in the crash states: \
            posix (once its directory was flushed: what POSIX promises, and what a store's promise must hold under) \
            or ext4 (a created file once it or its directory was flushed).
            """)
    var newFiles = "posix"

    @Option(
        help: ArgumentHelp(
            "The records the stores start with and the transactions write: item (the default), a preset (wide, "
                + "document, attachment, event) or a JSON shape file: checks a file variant's attachments (sqlite+files, "
                + "orm+external) as its rows are.", valueName: "shape"))
    var shape = "item"

    @Option(help: "Output directory for crash.json and crash.md: new, empty, or an earlier run's.")
    var out = "results/crash-latest"

    @Flag(help: replaceHelp)
    var replace = false

    /// Stores with an integrity check and a promise (memory promises nothing).
    static var checkable: [StoreKind] { allStores.filter(\.isCrashChecked) }

    func validate() throws {
        _ = try parsed()
    }

    private func parsed() throws -> ([StoreKind], CrashCampaign.Configuration) {
        let kinds =
            try stores.map { list in try badInput { try StoreCatalog.stores(named: list) } }
            ?? Self.checkable.filter(\.inDefaultChecks)
        let records = scale.scale.records
        guard OptionBounds.crashScale.contains(records) else {
            throw ValidationError("invalid --scale '\(scale)': use a record count from 1 to 10M such as 10k or 1M")
        }
        guard let rule = NewFileRule(rawValue: newFiles) else {
            throw ValidationError("invalid --new-files '\(newFiles)': posix or ext4")
        }
        var configuration = CrashCampaign.Configuration(
            scale: records, seed: seed, kills: kills, powerLossStates: powerLoss, faults: faults,
            corruptions: corruptions, transactions: transactions, maximumKillDelayMilliseconds: maxDelay,
            newFiles: rule, crashes: crashes)
        configuration.shape = try badInput { try RecordShape.named(shape) }
        if configuration.shape != nil, let kind = kinds.first(where: { !($0.type is any RecordStore.Type) }) {
            throw ValidationError("--shape \(shape): \(kind.name) stores no records of a shape")
        }
        try badInput { try configuration.validate(stores: kinds) }
        return (kinds, configuration)
    }

    func run() throws {
        let (kinds, configuration) = try parsed()
        let claim = try OutputDirectory(out, option: "--out", use: .fresh(replacing: replace))
        defer { claim.release() }
        let results = try CrashCampaign.checkAndReport(
            kinds, configuration: configuration, output: URL(fileURLWithPath: out), say: { print($0) })
        if results.failed { throw ExitCode.failure }
    }
}
