import Foundation
import Testing

@testable import PersistenceBench

/// Every committed results.json decodes and re-encodes to the same bytes: the cell's record in parts (`CellMetrics`)
/// writes every key, and only the keys, it wrote as one flat value.
@Suite struct ResultsRoundTripTests {
    static let results = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("results")

    /// The results.json files git tracks under results/, relative to it: not what a run beside the tests writes
    /// there (CI's counter check writes results/check-counters/ while the tests run, and removes its parts).
    static let committedFiles: [String] = {
        let listed = (try? Subprocess.output(of: ["git", "-C", results.path, "ls-files", "-z"])) ?? ""
        return listed.split(separator: "\0").map(String.init)
            .filter { $0 == "results.json" || $0.hasSuffix("/results.json") }.sorted()
    }()

    @Test func everyCommittedRunIsFound() {
        #expect(Self.committedFiles.count >= 200, "\(Self.committedFiles.count) results.json under results/")
        #expect(Self.committedFiles.contains("2026-11-27-flagship-sweep/merged/results.json"))
    }

    @Test(arguments: committedFiles) func reencodesToItsOwnBytes(_ file: String) throws {
        let data = try Data(contentsOf: Self.results.appendingPathComponent(file))
        let again = try RunResults.decode(data, path: file).jsonData()
        guard again != data else { return }
        let differing =
            zip(again, data).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(again.count, data.count)
        let context = { (bytes: Data) in
            String(decoding: bytes[max(0, differing - 120)..<min(bytes.count, differing + 120)], as: UTF8.self)
        }
        Issue.record("\(file) re-encodes otherwise at byte \(differing):\n\(context(data))\n---\n\(context(again))")
    }
}
