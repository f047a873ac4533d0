import Foundation
import PersistenceBench

extension RunSession {
    /// `check --base`: the matrix's cells of the two builds timed in turn (`Runner.interleaved`), each side written to
    /// `output`/base and `output`/current; then the stores the first round finds slower timed again, twice the
    /// repetitions, this build first, into `output`/confirmation. A regression is what both rounds find slower.
    package func timeCheck(executables: Sides<String>, output: URL) throws -> TimeCheck {
        let first = try timeRound(configuration, stores: stores, executables: executables, first: .base, output: output)
        var confirmation: TimeComparison?
        let again = TimeCheck.storesToConfirm(after: first)
        if !again.isEmpty {
            var confirming = configuration
            confirming.stores = again
            confirming.repetitions = TimeCheck.confirmationRepetitions(after: configuration.repetitions)
            print(
                "The first round found slower: " + first.slower.map(\.name).joined(separator: ", ")
                    + "; timing \(again.joined(separator: ", ")) again, \(confirming.repetitions) repetitions each, "
                    + "this build first")
            confirmation = try timeRound(
                confirming, stores: again.compactMap { name in stores.first { $0.name == name } },
                executables: executables,
                first: .current, output: output.appendingPathComponent("confirmation"))
        }
        return TimeCheck(first: first, confirmation: confirmation)
    }

    /// One interleaved round of `configuration`'s cells, each side written to `output`/base and `output`/current,
    /// judged.
    private func timeRound(
        _ configuration: RunConfiguration, stores: [StoreKind], executables: Sides<String>,
        first: Side, output: URL
    ) throws -> TimeComparison {
        let writers = Sides {
            RunningReportWriter(directory: output.appendingPathComponent($0.rawValue))
        }
        let results = try Runner.interleaved(
            configuration: configuration, stores: stores, workloads: workloads,
            environment: RunEnvironment.current(stores: stores, arguments: CommandLine.arguments),
            executables: executables, first: first, outputDirectory: output, observer: ConsoleProgress(),
            save: { side, results in try writers[side].write(results) })
        return try TimeComparison(base: results.base, current: results.current)
    }
}
