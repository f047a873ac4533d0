import Foundation
import Testing

@testable import PersistenceBench

/// The fixture cache: an entry built once and reused while its files are the ones checked at its build, built again
/// when a byte changed, evicted least recently used past its cap, and never touching what it did not write; and a run
/// on a reused fixture measures what a run on a fresh one does.
@Suite struct FixtureCacheTests {
    private func key(_ records: Int) -> FixtureCache.Key {
        FixtureCache.Key(
            store: "test", engine: "none", fixture: "items", records: records, seed: 42, batchSize: 10, shape: nil,
            build: "b")
    }

    @Test func anEntryIsBuiltOnceAndBuiltAgainWhenAByteChanged() throws {
        let root = try TemporaryDirectory()
        let cache = try FixtureCache(place: .init(directory: root.url.path, capBytes: 1 << 20))
        var builds = 0
        let first = try cache.files(of: key(10)) { directory in
            builds += 1
            try Data(repeating: 7, count: 1000).write(to: directory.appendingPathComponent("data"))
            return "written"
        }
        #expect(first.use.built && first.use.bytes == 1000 && first.use.rebuilt == nil)
        let again = try cache.files(of: key(10)) { _ in
            builds += 1
            return "written"
        }
        #expect(!again.use.built && builds == 1 && again.files == first.files)
        #expect(again.use.checked.hasSuffix("its files' digest as built"))
        // One byte changed in the entry: not reused, built again, and the reason says why.
        let handle = try FileHandle(forWritingTo: first.files.appendingPathComponent("data"))
        try handle.seek(toOffset: 500)
        try handle.write(contentsOf: Data([8]))
        try handle.close()
        let rebuilt = try cache.files(of: key(10)) { directory in
            builds += 1
            try Data(repeating: 7, count: 1000).write(to: directory.appendingPathComponent("data"))
            return "written"
        }
        #expect(rebuilt.use.built && builds == 2)
        #expect(rebuilt.use.rebuilt?.contains("its files changed since they were built and checked") == true)
        #expect(try Data(contentsOf: rebuilt.files.appendingPathComponent("data")) == Data(repeating: 7, count: 1000))
    }

    @Test func aFailedBuildLeavesNothingAndADirectoryNotOursIsRefusedUntouched() throws {
        let root = try TemporaryDirectory()
        let cache = try FixtureCache(place: .init(directory: root.url.path, capBytes: 1 << 20))
        #expect(throws: BenchError.self) {
            _ = try cache.files(of: key(10)) { _ in throw BenchError("the load failed") }
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: root.url.path)
        #expect(left.filter { !$0.hasSuffix(".lock") && $0 != ".persistbench-fixtures" } == [], "\(left)")
        let foreign = root.url.appendingPathComponent(key(20).name)
        try FileSystem.makeDirectory(foreign)
        try Data("mine".utf8).write(to: foreign.appendingPathComponent("notes"))
        #expect(throws: BadInput.self) { _ = try cache.files(of: key(20)) { _ in "never" } }
        #expect(try Data(contentsOf: foreign.appendingPathComponent("notes")) == Data("mine".utf8))
    }

    @Test func pastItsCapTheLeastRecentlyUsedEntryGoesButNotOneInUseNorAnythingElse() throws {
        let root = try TemporaryDirectory()
        let cache = try FixtureCache(place: .init(directory: root.url.path, capBytes: 2500))
        // A build and a removal a killed run left behind: removed at the next eviction, as no run is at them; a
        // hidden directory of another name is not the cache's, and stays.
        let abandoned = root.url.appendingPathComponent(".\(key(9).name).building")
        try FileSystem.makeDirectory(abandoned.appendingPathComponent("files"))
        let halfRemoved = root.url.appendingPathComponent(".\(key(8).name).evicting")
        try FileSystem.makeDirectory(halfRemoved.appendingPathComponent("files"))
        let someoneElses = root.url.appendingPathComponent(".photos.building")
        try FileSystem.makeDirectory(someoneElses)
        // Something a hand put in the cache's directory: not an entry, never removed.
        let unrelated = root.url.appendingPathComponent("unrelated")
        try FileSystem.makeDirectory(unrelated)
        try Data(repeating: 1, count: 5000).write(to: unrelated.appendingPathComponent("big"))
        func write(_ directory: URL) throws -> String {
            try Data(repeating: 7, count: 1000).write(to: directory.appendingPathComponent("data"))
            return "written"
        }
        let entries = root.url.path
        func present() throws -> Set<String> {
            Set(try FileManager.default.contentsOfDirectory(atPath: entries).filter { !$0.hasPrefix(".") })
        }
        _ = try cache.files(of: key(1), build: write)
        _ = try cache.files(of: key(2), build: write)
        _ = try cache.files(of: key(3), build: write)
        #expect(!FileManager.default.fileExists(atPath: abandoned.path))
        #expect(!FileManager.default.fileExists(atPath: halfRemoved.path))
        #expect(FileManager.default.fileExists(atPath: someoneElses.path))
        // All three are in use (one run's scale): over the cap, none goes.
        #expect(try present() == [key(1).name, key(2).name, key(3).name, "unrelated"])
        try cache.release()
        // Released, the oldest goes; then 2 is used again and 4 built: 3 is now the least recently used.
        #expect(try present() == [key(2).name, key(3).name, "unrelated"])
        _ = try cache.files(of: key(2), build: write)
        try cache.release()
        _ = try cache.files(of: key(4), build: write)
        #expect(try present() == [key(2).name, key(4).name, "unrelated"])
        #expect(try Data(contentsOf: unrelated.appendingPathComponent("big")).count == 5000)
    }

    /// Two runs sharing the cache (two caches on one directory: each lock is its own open file, as another
    /// process's is): what one holds, the other's eviction leaves, and takes once it is released.
    @Test func anEntryAnotherRunHoldsIsNotEvicted() throws {
        let root = try TemporaryDirectory()
        let place = FixtureCache.Place(directory: root.url.path, capBytes: 2500)
        let first = try FixtureCache(place: place)
        let second = try FixtureCache(place: place)
        func write(_ directory: URL) throws -> String {
            try Data(repeating: 7, count: 1000).write(to: directory.appendingPathComponent("data"))
            return "written"
        }
        _ = try first.files(of: key(1), build: write)
        _ = try second.files(of: key(2), build: write)
        _ = try second.files(of: key(3), build: write)
        try second.release()
        // Over the cap, the least recently used entry goes: not the first, which the other run holds, but the second.
        func present(_ records: Int) -> Bool {
            FileManager.default.fileExists(atPath: root.url.appendingPathComponent(key(records).name).path)
        }
        #expect(present(1), "evicted while another run held it")
        #expect(!present(2) && present(3))
        try first.copy(key(1), to: root.url.appendingPathComponent("cell"))
        #expect(FileManager.default.fileExists(atPath: root.url.appendingPathComponent("cell/data").path))
        try first.release()
    }

    /// Two runs needing one entry at once (shards on one machine): one builds it, the other waits for the build and
    /// reuses it while the first still holds it, neither building it twice nor waiting for the other's release.
    @Test func aRunWaitsForAnotherRunsBuildAndReusesIt() throws {
        let root = try TemporaryDirectory()
        let place = FixtureCache.Place(directory: root.url.path, capBytes: 1 << 20)
        let (first, second) = (try FixtureCache(place: place), try FixtureCache(place: place))
        let building = DispatchSemaphore(value: 0)
        let builder = DispatchGroup()
        nonisolated(unsafe) var built: FixtureCache.Use?
        // The other run, on a thread of its own: the cache is one run's, used by one thread at a time.
        nonisolated(unsafe) let other = first
        let entry = key(1)
        DispatchQueue.global().async(group: builder) {
            built = try? other.files(of: entry) { directory in
                building.signal()
                Thread.sleep(forTimeInterval: 0.5)
                try Data(repeating: 7, count: 1000).write(to: directory.appendingPathComponent("data"))
                return "written"
            }.use
        }
        building.wait()
        let reused = try failingIfHung(after: 30, "the second run's wait for the first's build") {
            try second.files(of: key(1)) { _ in
                Issue.record("built twice")
                return "again"
            }.use
        }
        builder.wait()
        #expect(built?.built == true && !reused.built)
        try first.release()
        try second.release()
    }

    @Test func aDirectoryThatIsNotACacheIsBadInputBeforeTheRun() throws {
        let root = try TemporaryDirectory()
        let mine = root.url.appendingPathComponent("mine")
        try FileSystem.makeDirectory(mine)
        try Data("keep".utf8).write(to: mine.appendingPathComponent(".photos.building"))
        let out = root.url.appendingPathComponent("out")
        for place in [mine.path, "", mine.appendingPathComponent(".photos.building").path] {
            let refused = try #require(
                answer(to: [
                    "run", "--stores", "memory", "--workloads", "get", "--scales", "1k", "--out", out.path,
                    "--fixtures", place,
                ]), "\(place) was accepted")
            #expect(refused.status == 2 && refused.line.contains("--fixtures"), "\(refused.line)")
        }
        #expect(try Data(contentsOf: mine.appendingPathComponent(".photos.building")) == Data("keep".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: mine.path) == [".photos.building"])
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    /// A shape's key is the same in every process (its JSON's keys sorted): a shaped run reuses what the last built.
    @Test(.tags(.endToEnd))
    func aShapedRunReusesItsFixtures() throws {
        let stores = Array(recordStoreNames.prefix(2))
        let directory = try TemporaryDirectory()
        let cache = directory.url.appendingPathComponent("fixtures").path
        var built: [[Bool]] = []
        for name in ["first", "second"] {
            let out = directory.url.appendingPathComponent(name).path
            let run = try failingIfHung(after: 600, "run \(name)") {
                try runTool([
                    "run", "--stores", stores.joined(separator: ","), "--workloads", "get", "--scales", "2k",
                    "--repetitions", "1", "--shape", "wide", "--out", out, "--fixtures", cache,
                ])
            }
            try #require(run.status == 0, "\(run.output)")
            let results = try RunResults.load(from: URL(fileURLWithPath: out).appendingPathComponent("results.json"))
            built.append(results.cells.compactMap(\.fixture).map(\.built))
        }
        #expect(built == [[true, true], [false, false]])
    }

    /// The same cells on fixtures built in the run's scratch space (twice), on one built into the cache, and on the
    /// cache's entry reused: the same digests; after `get` (which writes nothing) the reused fixture's data files equal
    /// the built one's byte for byte, and a fresh build's wherever two fresh builds are equal (the ORMs stamp ids
    /// and `json` orders keys by a per-process hash, so their loads differ from each other).
    @Test(.tags(.endToEnd))
    func aCellOnAReusedFixtureMeasuresWhatOneOnAFreshBuildDoes() throws {
        let get = try #require(WorkloadCatalog.workload(named: "get"))
        let stores = storeNames(running: get) { integrityCheckedStoreNames.contains($0.name) }
        let directory = try TemporaryDirectory()
        let cache = directory.url.appendingPathComponent("fixtures").path
        func run(_ name: String, fixtures: String) throws -> RunResults {
            let out = directory.url.appendingPathComponent(name).path
            let run = try failingIfHung(after: 600, "run \(name)") {
                try runTool([
                    "run", "--stores", stores.joined(separator: ","), "--workloads", "get,update", "--scales", "2k",
                    "--repetitions", "1", "--time-box", "none", "--keep-stores", "--out", out, "--fixtures", fixtures,
                ])
            }
            try #require(run.status == 0, "\(run.output)")
            return try RunResults.load(from: URL(fileURLWithPath: out).appendingPathComponent("results.json"))
        }
        let scratch = try run("scratch", fixtures: "none")
        _ = try run("again", fixtures: "none")
        let built = try run("built", fixtures: cache)
        let reused = try run("reused", fixtures: cache)
        func digests(_ results: RunResults) -> [String: Digest?] {
            Dictionary(uniqueKeysWithValues: results.cells.map { ("\($0.store) \($0.workload)", $0.metrics?.digest) })
        }
        #expect(digests(built) == digests(scratch) && digests(reused) == digests(scratch))
        let prepared = { (results: RunResults) in results.cells.compactMap(\.fixture) }
        #expect(prepared(built).count == stores.count && prepared(built).allSatisfy { $0.built })
        #expect(prepared(reused).count == stores.count && prepared(reused).allSatisfy { !$0.built })
        #expect(prepared(scratch).allSatisfy { $0.built })
        var deterministic: [String] = []
        for name in stores {
            let type = try #require(try storeKind(name).type as? any IntegrityCheckingStore.Type)
            func data(_ run: String) throws -> [String: Data] {
                let kept = directory.url.appendingPathComponent("\(run)/stores/\(name)/get-2k")
                return try Dictionary(
                    uniqueKeysWithValues: type.storeFiles(in: kept, kind: name).data.map {
                        ($0, try Data(contentsOf: kept.appendingPathComponent($0)))
                    })
            }
            let built = try data("built")
            #expect(!built.isEmpty)
            #expect(try data("reused") == built, "\(name): the files of a cell on a reused fixture")
            let fresh = try data("scratch")
            if try data("again") == fresh {
                deterministic.append(name)
                #expect(built == fresh, "\(name): the files of a cell on a fixture built into the cache")
            }
        }
        #expect(!deterministic.isEmpty, "no store loads the same files twice")
        let report = try String(
            contentsOf: directory.url.appendingPathComponent("reused/report.md"), encoding: .utf8)
        #expect(report.contains("| Fixtures reused | \(stores.count), "), "\(report)")
    }
}
