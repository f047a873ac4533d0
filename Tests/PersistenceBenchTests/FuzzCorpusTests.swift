import Foundation
import FuzzTargets
import Testing

/// The fuzz targets' committed corpus (`Tests/FuzzCorpus/<target>/`: the seeds, and every input the fuzzer found
/// that trapped, once fixed), fed to each target again: a reader that traps on one ends the test process.
@Suite struct FuzzCorpusTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("FuzzCorpus")

    @Test(arguments: FuzzTarget.allCases)
    func everyInputOfTheCorpusIsReadWithoutATrap(target: FuzzTarget) throws {
        let directory = Self.corpus.appendingPathComponent(target.rawValue)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(!names.isEmpty, "no corpus for \(target.rawValue)")
        for name in names { target.run(try Data(contentsOf: directory.appendingPathComponent(name))) }
    }
}
