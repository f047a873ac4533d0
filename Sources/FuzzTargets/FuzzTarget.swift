import Foundation
import PackedStore
import PersistenceBench

/// The readers of what a user or a crash hands the tool, each fed one input by a coverage-guided fuzzer
/// (`make fuzz`: libFuzzer, `swiftc -sanitize=fuzzer`) or by the tests replaying the committed corpus
/// (`Fuzz/corpus/<target>/`).
///
/// A reader may refuse an input with an error; it must never trap, hang or read outside what it mapped.
package enum FuzzTarget: String, CaseIterable, Sendable {
    /// `--shape FILE`: a record shape's JSON (`RecordShape.parse`, then its validation).
    case shape
    /// A run's results.json (`RunResults.decode`), as `report`, `merge`, `compare` and `--resume` read it.
    case results
    /// A `packed` store's files: the input, cut at its first byte's choice of file, written over one file of a small
    /// real store, which is then opened (its recovery), checked (`integrityProblems`) and read whole.
    case packed
    /// libWriteRecorder's log of a writer's calls (`WriteLog`), as `crash --power-loss` reads it.
    case writeLog = "write-log"

    /// Feeds `input` to the target's reader; what it throws is a refusal, and is dropped.
    package func run(_ input: Data) {
        switch self {
        case .shape:
            _ = try? RecordShape.parse(input).validate()
        case .results:
            _ = try? RunResults.decode(input, path: "results.json")
        case .packed:
            PackedInput.run(input)
        case .writeLog:
            _ = try? WriteLog(bytes: [UInt8](input), path: "writes.log", directory: "/store")
        }
    }
}

/// The `packed` target's store: made once per process, copied for each input.
private enum PackedInput {
    /// The files an input's first byte chooses among (that byte modulo their count).
    static let files = [
        "g1/items.rows", "g1/strings.arena", "g1/items.tombstones", "g1/items.journal",
        "g1/items.order", "CURRENT",
    ]

    /// A store of 40 items with a page index and a deletion (so that every file has content), in a directory of its
    /// own under the temporary directory.
    static let seed: URL? = {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "persistbench-fuzz-seed-\(getpid())")
        try? FileManager.default.removeItem(at: directory)
        guard (try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)) != nil,
            let store = try? PackedItemStore(directory: directory)
        else { return nil }
        try? store.insert(ItemGenerator(seed: 1).items(1...40))
        _ = try? store.page(ItemPageQuery(priority: nil, limit: 5, offset: 0))
        try? store.delete(ids: [3, 17])
        try? store.close()
        return directory
    }()

    static func run(_ input: Data) {
        guard let seed, let choice = input.first else { return }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "persistbench-fuzz-\(getpid())")
        try? FileManager.default.removeItem(at: directory)
        defer { try? FileManager.default.removeItem(at: directory) }
        guard (try? FileManager.default.copyItem(at: seed, to: directory)) != nil else { return }
        let file = directory.appendingPathComponent(files[Int(choice) % files.count])
        guard (try? input.dropFirst().write(to: file)) != nil, let store = try? PackedItemStore(directory: directory)
        else { return }
        _ = try? store.integrityProblems()
        try? store.forEachItem { _ in }
        _ = try? store.page(ItemPageQuery(priority: .high, limit: 20, offset: 0))
        try? store.close()
    }
}
