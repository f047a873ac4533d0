import Foundation
import GRDBStore
import PersistenceBench
import SQLiteStore
import Testing

/// A fixture built with a store's build settings (no sync until the end, a larger page cache) is the fixture built
/// with its everyday settings, each settled at its end: the same files, byte for byte, or, for a store whose two
/// everyday builds differ (the ORMs stamp a random id into their metadata), files of the same sizes that differ only
/// in pages where two everyday builds differ too.
@Suite struct FastBuildTests {
    /// Every store that builds fast, chosen by its capability.
    static let stores = allStoreKinds.filter { $0.type is any FastBuildingStore.Type }.map(\.name)

    /// One workload for each fixture a store loads, and the records of a shape.
    static func fixtures(of kind: StoreKind) -> [(workload: any Workload, scale: Int)] {
        var seen: Set<String> = []
        var chosen: [(any Workload, Int)] = []
        for workload in WorkloadCatalog.all where workload.applies(to: kind) {
            guard let fixture = workload.fixture, seen.insert(fixture.name).inserted else { continue }
            // Items past the 2 MiB page cache of SQLite's default, in many commits and checkpoints.
            chosen.append((workload, fixture.name == "items" ? 20_000 : 3_000))
        }
        let shaped = ShapedWorkload(.get, shape: RecordShape.document)
        if shaped.applies(to: kind) { chosen.append((shaped, 2_000)) }
        return chosen
    }

    @Test func theSQLiteAndLMDBStoresBuildFast() {
        #expect(Set(Self.stores).isSuperset(of: ["sqlite", "grdb", "orm", "orm+swiftdata", "lmdb"]), "\(Self.stores)")
    }

    @Test(arguments: stores)
    func aFixtureBuiltFastIsTheFixtureBuiltWithEverydaySettings(store: String) throws {
        let kind = try storeKind(store)
        let temporary = try TemporaryDirectory()
        for (workload, scale) in Self.fixtures(of: kind) {
            func build(_ name: String, cacheBytes: Int?) throws -> [String: Data] {
                let directory = try temporary.subdirectory("\(workload.name)-\(name)")
                let parameters = CellParameters(
                    scale: scale, seed: 7, batchSize: 1_000, timeBox: .none,
                    extras: (workload as? ShapedWorkload).map { [.shape($0.shape)] } ?? [])
                try CellExecution.loadFixture(
                    of: workload, into: kind, at: directory,
                    context: WorkloadContext(
                        parameters: parameters, stopwatch: Stopwatch(), progress: ProgressReporter()),
                    buildCacheBytes: cacheBytes)
                // Lock files name the process that held them; a truncated log is empty either way.
                return try fileContents(of: directory).filter { name, _ in
                    !name.hasSuffix("lock.mdb") && !name.hasSuffix(".lock") && !name.hasSuffix("-shm")
                }
            }
            let everyday = try build("everyday", cacheBytes: nil)
            let again = try build("again", cacheBytes: nil)
            let fast = try build("fast", cacheBytes: 64 << 20)
            let what = "\(store), the \(workload.fixture?.name ?? "") fixture at \(scale)"
            #expect(!everyday.isEmpty, "\(what): no files")
            #expect(Set(fast.keys) == Set(everyday.keys), "\(what): other files")
            for (name, bytes) in everyday {
                let fastBytes = fast[name] ?? Data()
                #expect(
                    fastBytes.count == bytes.count, "\(what): \(name) is \(fastBytes.count) bytes, not \(bytes.count)")
                let differing = Self.differingPages(bytes, fastBytes)
                let noise = Self.differingPages(bytes, again[name] ?? Data())
                #expect(
                    differing.isSubset(of: noise),
                    "\(what): \(name) differs in pages \(differing.sorted().prefix(8)) (two everyday builds: \(noise.sorted().prefix(8)))"
                )
            }
        }
    }

    @Test(arguments: ["sqlite", "sqlite+tuned", "grdb"])
    func theBuildSettingsHoldDuringTheBuildAndAreUndoneAtItsEnd(store name: String) throws {
        let temporary = try TemporaryDirectory()
        let store = try storeKind(name).open(temporary.url)
        func settings() throws -> String {
            switch store {
            case let store as SQLiteItemStore: return try store.pragmaSettings()
            case let store as GRDBItemStore: return try store.pragmaSettings()
            default: throw BenchError("\(name) has no pragmas to read")
            }
        }
        let everyday = try settings()
        let building = try #require(store as? any FastBuildingStore)
        try building.startBuild(cacheBytes: 64 << 20)
        let during = try settings()
        // sqlite+tuned keeps its own 1 GiB cache, the larger.
        let cache = name == "sqlite+tuned" ? "-1048576" : "-65536"
        #expect(during.contains("synchronous=0 cache_size=\(cache)"), "\(during)")
        try (store as? any ItemStore)?.insert(ItemGenerator(seed: 7).items(1...100))
        try store.settle()
        try building.finishBuild()
        #expect(try settings() == everyday)
        try store.close()
    }

    /// The 4 KiB pages at which `a` and `b` differ.
    static func differingPages(_ a: Data, _ b: Data) -> Set<Int> {
        let page = 4_096
        return Set(
            stride(from: 0, to: max(a.count, b.count), by: page).compactMap { start in
                let end = start + page
                let left = a.count > start ? a[start..<min(end, a.count)] : Data()
                let right = b.count > start ? b[start..<min(end, b.count)] : Data()
                return left == right ? nil : start / page
            })
    }
}
