import Foundation

/// What `persistbench crash` writes to crash.json: the machine, the configuration, a row per store and check.
package struct CrashResults: Codable, Sendable {
    package var environment: RunEnvironment
    package var scale: Int
    package var seed: UInt64
    package var kills: Int
    package var powerLossStates: Int
    package var faults: Int
    package var corruptions: Int?
    package var transactions: Int
    /// The rule the power-loss states were built under; nil in files written before it was a choice (ext4's).
    package var newFiles: NewFileRule?
    package var summaries: [CrashSummary] = []
    /// Stores whose check stopped with an error (a failed fixture load, a missing recorder), with the error.
    package var errors: [String: String] = [:]

    package init(environment: RunEnvironment, configuration: CrashCampaign.Configuration) {
        self.environment = environment
        scale = configuration.scale
        seed = configuration.seed
        kills = configuration.kills
        powerLossStates = configuration.powerLossStates
        faults = configuration.faults
        corruptions = configuration.corruptions
        transactions = configuration.transactions
        newFiles = configuration.powerLossStates > 0 ? configuration.newFiles : nil
    }

    /// Whether any store broke its promise or could not be checked.
    package var failed: Bool { summaries.contains { $0.broken > 0 } || !errors.isEmpty }

    package func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(self)
    }
}
