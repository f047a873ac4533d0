import Foundation

extension RunSession {
    // MARK: - The counter check

    /// `check --counters`: each baseline's matrix (`sessions`, resolved from the baselines' own configurations)
    /// counted again, in turn, into its directory of `outputs`, joined into one run the check judges against the
    /// baselines joined.
    package static func countAgain(_ sessions: [RunSession], into outputs: [URL], jobs: Int) throws -> RunResults {
        try RunResults.joining(
            zip(sessions, outputs).map { session, output in try session.count(output: output, jobs: jobs) })
    }
}
