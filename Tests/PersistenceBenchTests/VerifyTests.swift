import Foundation
import Testing

@testable import PersistenceBench

/// `verify` never writes what it checks, and no store's open removes what it cannot vouch for: every store with an
/// integrity check, on a real store, on the store with each data file removed, cut to zero bytes and cut mid-page,
/// and on directories that are not its store; every file's bytes compared before and after.
@Suite struct VerifyTests {
    /// The stores `verify` can check.
    static let checkedStores = integrityCheckedStoreNames

    /// Data files whose bytes past their header may hold nothing committed: `packed`'s journal once its last commit's
    /// changes were applied and flushed (a clean close).
    ///
    /// Cut past its header, such a file loses nothing.
    static let mayHoldNothingCommitted: Set<String> = ["g1/items.journal"]

    /// A store of the `get` fixture at 300 items with every third of the last 30 deleted (so that the deletions' bits sit at
    /// the end of `packed`'s tombstones), then item 1 deleted (so that the last commit's journal holds none of those
    /// bits), closed.
    private func makeStore(_ name: String, in directory: URL) throws {
        let kind = try storeKind(name)
        let context = WorkloadContext(
            scale: 300, seed: 7, batchSize: 100, stopwatch: Stopwatch(), progress: ProgressReporter())
        try CellExecution.loadFixture(
            of: try #require(WorkloadCatalog.workload(named: "get")), into: kind, at: directory, context: context)
        let store = try openItemStore(kind, at: directory)
        try store.delete(ids: Array(stride(from: 271, through: 300, by: 3)))
        try store.delete(ids: [1])
        try store.close()
    }

    /// Where the bytes written to `file` end: its length, or its first hole (`lmdb+writemap` sizes its file to
    /// the whole map, and a cut in the hole past its pages loses nothing).
    private func dataEnd(of file: URL) throws -> Int {
        let descriptor = open(file.path, O_RDONLY)
        guard descriptor >= 0 else { throw BenchError.system("open \(file.path)") }
        defer { close(descriptor) }
        let seekHole: Int32 = 4  // Linux's SEEK_HOLE, which glibc declares only under _GNU_SOURCE
        return Int(lseek(descriptor, 0, seekHole))
    }

    /// What `verify` says of `directory`: its verification, or the bad input it refused; checks nothing changed.
    private func verify(_ name: String, _ directory: URL) throws -> Result<StoreVerification, BadInput> {
        let before = try fileContents(of: directory, directories: true)
        let result: Result<StoreVerification, BadInput>
        do {
            result = .success(
                try StoreVerification(try storeKind(name), directory: directory, executable: toolExecutable.path))
        } catch let refusal as BadInput {
            result = .failure(refusal)
        }
        #expect(try fileContents(of: directory, directories: true) == before, "verify changed \(directory.path)")
        return result
    }

    @Test(arguments: checkedStores)
    func verifyChangesNoFileAndCallsEveryMissingOrCutDataFileDamaged(store name: String) throws {
        let temporary = try TemporaryDirectory()
        let original = try temporary.subdirectory("store")
        try makeStore(name, in: original)
        let sound = try verify(name, original).get()
        #expect(sound.problems.isEmpty, "\(sound.problems)")
        #expect(sound.items == 289)
        let type = try #require(try storeKind(name).type as? any IntegrityCheckingStore.Type)
        let dataFiles = type.storeFiles(in: original, kind: name).data
        #expect(!dataFiles.isEmpty)
        for file in dataFiles {
            let written = try dataEnd(of: original.appendingPathComponent(file))
            let cuts: [(String, (URL) throws -> Void)] = [
                ("removed", { try FileManager.default.removeItem(at: $0) }),
                ("cut to 0 bytes", { try FileHandle(forWritingTo: $0).truncate(atOffset: 0) }),
                ("cut mid-page", { try FileHandle(forWritingTo: $0).truncate(atOffset: UInt64(written / 2 | 1)) }),
                (
                    "cut into its header",
                    {
                        try FileHandle(forWritingTo: $0).truncate(atOffset: UInt64(min(written / 2, 100)))
                    }
                ),
            ]
            for (what, cut) in cuts {
                let copy = temporary.url.appendingPathComponent(
                    "\(file.replacingOccurrences(of: "/", with: "-"))-\(what)")
                try FileManager.default.copyItem(at: original, to: copy)
                try cut(copy.appendingPathComponent(file))
                switch try verify(name, copy) {
                case .success(let verification) where Self.mayHoldNothingCommitted.contains(file):
                    // Sound only if nothing was lost: every item read, and the check found nothing.
                    #expect(!verification.problems.isEmpty || verification.items == 289, "\(name): \(file) \(what)")
                case .success(let verification):
                    #expect(!verification.problems.isEmpty, "\(name): \(file) \(what) called sound")
                case .failure(let refusal):
                    // A store of one file without it is no store at all.
                    #expect(what == "removed" && dataFiles.count == 1, "\(name): \(file) \(what): \(refusal)")
                }
            }
        }
    }

    @Test(arguments: checkedStores)
    func verifyRefusesADirectoryThatIsNotItsStore(store name: String) throws {
        let temporary = try TemporaryDirectory()
        let plain = try temporary.subdirectory("plain")
        for folder in ["g2", "g10"] {
            try FileManager.default.createDirectory(
                at: plain.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        try Data("chapter 1".utf8).write(to: plain.appendingPathComponent("g2/thesis.txt"))
        guard case .failure(let refusal) = try verify(name, plain) else {
            Issue.record("\(name) verified a directory that is not a store")
            return
        }
        #expect(refusal.description.contains("holds no \(name) store"), "\(refusal)")
        // Another kind's store is not this one's.
        let other = try temporary.subdirectory("other")
        try makeStore(name.hasPrefix("lmdb") ? "sqlite" : "lmdb", in: other)
        guard case .failure = try verify(name, other) else {
            Issue.record("\(name) verified another kind's store")
            return
        }
    }

    @Test func packedRefusesACurrentThatNamesAMissingGenerationAndKeepsTheOne() throws {
        let temporary = try TemporaryDirectory()
        let directory = try temporary.subdirectory("packed")
        try makeStore("packed", in: directory)
        try Data("g9\n".utf8).write(to: directory.appendingPathComponent("CURRENT"))
        let before = try fileContents(of: directory, directories: true)
        let refusal = #expect(throws: (any Error).self) {
            try openItemStore(try storeKind("packed"), at: directory).close()
        }
        #expect("\(refusal.map { "\($0)" } ?? "")".contains("names g9, which is not there (generations found: g1)"))
        #expect(try fileContents(of: directory, directories: true) == before)
        let verification = try verify("packed", directory).get()
        #expect(verification.problems == ["\(directory.path)/g9: missing"], "\(verification.problems)")
    }

    /// Every store's open and close on a directory that already holds a user's files (named as a store's
    /// generations, attachments or records might be) leave every one of them as it was.
    @Test(arguments: allStoreNames)
    func noStoreOpenRemovesFilesItDidNotWrite(store name: String) throws {
        let temporary = try TemporaryDirectory()
        let directory = try temporary.subdirectory("store")
        for (path, text) in [("g2/thesis.txt", "chapter 1"), ("g10/.keep", ""), ("notes.txt", "mine")] {
            let url = directory.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        let before = try fileContents(of: directory, directories: true)
        do {
            let store = try openItemStore(try storeKind(name), at: directory)
            try store.insert(ItemGenerator(seed: 3).items(1...20))
            try store.close()
        } catch {
            // A refusal is allowed (packed will not start a store beside generations it did not make); a loss is not.
        }
        let after = try fileContents(of: directory, directories: true)
        for (path, bytes) in before { #expect(after[path] == bytes, "\(name) changed or removed \(path)") }
    }

    /// LMDB asserts on a page it cannot read and aborts the process: the check runs in a child, so the abort is a
    /// finding (exit 3), and the copy it ran on is removed.
    @Test(.tags(.endToEnd), .timeLimit(.minutes(5))) func anEngineThatAbortsOnADamagedPageIsAFinding() throws {
        let temporary = try TemporaryDirectory()
        let directory = try temporary.subdirectory("lmdb")
        try makeStore("lmdb", in: directory)
        let data = directory.appendingPathComponent("data.mdb")
        let handle = try FileHandle(forWritingTo: data)
        try handle.seek(toOffset: 4096 * 5)
        try handle.write(contentsOf: Data(count: 4096))
        try handle.close()
        let verification = try verify("lmdb", directory).get()
        #expect(!verification.problems.isEmpty)
        #expect(verification.problems.allSatisfy { !$0.contains("persistbench-verify-") }, "\(verification.problems)")
        // A file of holes past its pages is sound, and copied without writing them.
        let sparse = try temporary.subdirectory("sparse")
        try makeStore("lmdb", in: sparse)
        try FileHandle(forWritingTo: sparse.appendingPathComponent("data.mdb")).truncate(atOffset: 1 << 30)
        let holes = try verify("lmdb", sparse).get()
        #expect(holes.problems.isEmpty, "\(holes.problems)")
        #expect(holes.items == 289)
    }

    @Test func packedsOpenRemovesOnlyWhatHoldsAGenerationsFiles() throws {
        let temporary = try TemporaryDirectory()
        let directory = try temporary.subdirectory("packed")
        try makeStore("packed", in: directory)
        for folder in ["g2/items.rows", "g3", "g01"] {
            try FileManager.default.createDirectory(
                at: directory.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        try Data("mine".utf8).write(to: directory.appendingPathComponent("g2/items.rows/thesis.txt"))
        let before = try fileContents(of: directory, directories: true)
        try openItemStore(try storeKind("packed"), at: directory).close()
        let after = try fileContents(of: directory, directories: true)
        for path in ["g2/items.rows/thesis.txt", "g3", "g01"] { #expect(after[path] == before[path], "\(path)") }
    }
}
