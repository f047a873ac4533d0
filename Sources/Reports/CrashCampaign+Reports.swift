import Foundation
import PersistenceBench

extension CrashCampaign {
    /// `persistbench crash`: each store of `kinds` checked in turn by a campaign of `configuration` (its work under
    /// `output`/.persistbench-work), crash.json and crash.md written to `output` after each store.
    ///
    /// A store whose check fails to run is recorded as not checked and the others go on. `say` is told what happens.
    package static func checkAndReport(
        _ kinds: [StoreKind], configuration: Configuration, output: URL, say: @escaping (String) -> Void
    ) throws -> CrashResults {
        let executable = try Executable.path()
        let recorder = URL(fileURLWithPath: executable).deletingLastPathComponent()
            .appendingPathComponent("libWriteRecorder.so").path
        let campaign = CrashCampaign(
            configuration: configuration, executable: executable,
            recorder: FileManager.default.fileExists(atPath: recorder) ? recorder : nil,
            work: output.appendingPathComponent(OutputDirectory.scratchName), progress: say)
        var results = CrashResults(
            environment: RunEnvironment.current(stores: kinds, arguments: CommandLine.arguments),
            configuration: configuration)
        try FileSystem.makeDirectory(output)
        for kind in kinds {
            say("\(kind.name): \(kind.promise.summary)")
            do {
                results.summaries += try campaign.run(kind)
            } catch {
                say("\(kind.name): not checked: \(error)")
                results.errors[kind.name] = "\(error)"
            }
            try FileSystem.writeAtomically(try results.jsonData(), to: output.appendingPathComponent("crash.json"))
            try FileSystem.writeAtomically(
                Data(DurabilityReport.render(results).utf8), to: output.appendingPathComponent("crash.md"))
        }
        for summary in results.summaries {
            say(
                "\(summary.store) \(summary.check.rawValue): \(summary.trials) trials, \(summary.intact) intact, "
                    + "\(summary.lost) lost (\(summary.lostTransactions) transactions), \(summary.torn) torn, "
                    + "\(summary.corrupt) corrupt, \(summary.broken) broken")
        }
        say("Wrote \(output.path)/crash.md and crash.json")
        return results
    }
}
