import ArgumentParser
import Foundation
import PersistenceBench
import Reports
import StoreCatalog

struct Crash: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Kill a writer, cut its power, fail its writes; check what each store keeps.",
        discussion: """
            Per store: --kills writers killed with SIGKILL, --power-loss crash states rebuilt from a recorded writer's \
            writes and flushes, --faults injected ENOSPC/EIO failures, --corruptions byte flips (measured, never a \
            failure), --crashes 2 for two cuts in a row; each trial reopens the store in a fresh process, runs its \
            integrity check and compares every item with the committed states. Writes crash.json and crash.md. \
            Exit status: 0 when every store kept its promise, 1 when one broke it or could not be checked, 2 on bad \
            input. In full: docs/durability.md.
            """)

    @Option(help: "Comma-separated stores. Default: every store with a promise but the one-mechanism variants.")
    var stores: String?

    @Option(parsing: .unconditional, help: "Kills per store (0: none).")
    var kills = 200

    @Option(name: .customLong("power-loss"), parsing: .unconditional, help: "Power-loss states per store (0: none).")
    var powerLoss = 0

    @Option(parsing: .unconditional, help: "Crashes in a row: 1, or 2 for as many two-crash states as --power-loss.")
    var crashes = 1

    @Option(parsing: .unconditional, help: "Injected faults per store (0: none).")
    var faults = 0

    @Option(parsing: .unconditional, help: "Byte flips and truncations of the closed store per store (0: none).")
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

    @Option(parsing: .unconditional, help: "A kill comes a seeded 0 to this many milliseconds after the writer's open.")
    var maxDelay = 200

    @Option(
        name: .customLong("new-files"), parsing: .unconditional,
        help: "When a new name survives a power cut: posix (once its directory was flushed) or ext4.",
        transform: NewFileRule.parse)
    var newFiles = NewFileRule.posix

    @Option(help: "The records' shape: item, wide, document, attachment, event or a JSON shape file (docs/shapes.md).")
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
        var configuration = CrashCampaign.Configuration(
            scale: records, seed: seed, kills: kills, powerLossStates: powerLoss, faults: faults,
            corruptions: corruptions, transactions: transactions, maximumKillDelayMilliseconds: maxDelay,
            newFiles: newFiles, crashes: crashes)
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
