import Foundation
import Testing

@testable import PersistenceBench

/// Every committed results.json decodes and re-encodes to the same bytes: the cell's record in parts (`CellMetrics`)
/// writes every key, and only the keys, it wrote as one flat value.
@Suite struct ResultsRoundTripTests {
    static let results = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("results")

    static let committedFiles: [String] = {
        let walker = FileManager.default.enumerator(at: results, includingPropertiesForKeys: nil)
        return (walker?.compactMap { $0 as? URL } ?? []).filter { $0.lastPathComponent == "results.json" }
            .map { String($0.path.dropFirst(results.path.count + 1)) }.sorted()
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
