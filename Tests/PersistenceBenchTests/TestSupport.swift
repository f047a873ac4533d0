import Foundation
import PersistenceBench
import StoreCatalog
import Testing

extension Tag {
    /// A test that runs the built `persistbench` in child processes, as a user does: seconds to minutes each, so
    /// each has a time limit too.
    ///
    /// `swift test --skip-tags`-style filtering: `swift test --filter` by suite, or Swift Testing's tag filter where
    /// the toolchain offers it.
    @Tag static var endToEnd: Self
}

/// Every store under test, as the tool lists them.
let allStoreKinds = StoreCatalog.all
let allStoreNames = allStoreKinds.map(\.name)
/// The stores with each capability: a suite takes its stores from here, so that a store added to the catalogue is
/// tested by every suite that applies to it.
let itemStoreNames = allStoreKinds.filter { $0.type is any ItemStore.Type }.map(\.name)
let associationStoreNames = allStoreKinds.filter { $0.type is any AssociationStore.Type }.map(\.name)
let houseStoreNames = allStoreKinds.filter { $0.type is any HouseStore.Type }.map(\.name)
let migrationStoreNames = allStoreKinds.filter { $0.type is any MigrationStore.Type }.map(\.name)
let engineFloorStoreNames = allStoreKinds.filter { $0.type is any EngineFloorStore.Type }.map(\.name)
let profileStoreNames = allStoreKinds.filter { $0.type is any ProfileStore.Type }.map(\.name)
let searchStoreNames = allStoreKinds.filter { $0.type is any SearchStore.Type }.map(\.name)
let observableStoreNames = allStoreKinds.filter { $0.type is any ObservableItemStore.Type }.map(\.name)
let concurrentReadStoreNames = allStoreKinds.filter { $0.type is any ConcurrentReadStore.Type }.map(\.name)
/// The stores with an integrity check of their own (`verify`, a fixture's check after its load).
let integrityCheckedStoreNames = allStoreKinds.filter { $0.type is any IntegrityCheckingStore.Type }.map(\.name)
/// The stores `persistbench crash` checks: an integrity check and a promise to keep.
let crashCheckedStoreNames = allStoreKinds.filter(\.isCrashChecked).map(\.name)

/// The stores a suite runs `workload` on, chosen by capability: each store of the default set (one of each
/// strategy) that runs it, then each of `variants` (named for a mechanism the suite checks) that runs it, less those
/// `matching` rules out.
///
/// A store added to the catalogue is tested by every suite whose workload it runs.
func storeNames(
    running workload: any Workload, adding variants: [String] = [], matching keep: (StoreKind) -> Bool = { _ in true }
) -> [String] {
    let defaults = (try? StoreCatalog.stores(named: StoreSet.default.rawValue)) ?? []
    let named = variants.compactMap { name in allStoreKinds.first { $0.name == name } }
    return (defaults + named).filter { workload.applies(to: $0) && keep($0) }.map(\.name)
}

func storeKind(_ name: String) throws -> StoreKind {
    guard let kind = allStoreKinds.first(where: { $0.name == name }) else { throw BenchError("no store \(name)") }
    return kind
}

/// A fresh temporary directory, removed when the test ends.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("persistbench-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func subdirectory(_ name: String) throws -> URL {
        let directory = url.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }
}

/// Every file under `directory` with its bytes, and with `directories` every directory too (as a marker): what a
/// test compares before and after a command that must change nothing.
func fileContents(of directory: URL, directories: Bool = false) throws -> [String: Data] {
    var files: [String: Data] = [:]
    for name in try FileManager.default.subpathsOfDirectory(atPath: directory.path) {
        let url = directory.appendingPathComponent(name)
        var isDirectory: ObjCBool = false
        _ = FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory)
        if !isDirectory.boolValue {
            files[name] = try Data(contentsOf: url)
        } else if directories {
            files[name] = Data("(directory)".utf8)
        }
    }
    return files
}

/// Opens a store of `kind` in `directory` as an `ItemStore`.
func openItemStore(_ kind: StoreKind, at directory: URL) throws -> any ItemStore {
    guard let store = try kind.open(directory) as? any ItemStore else {
        throw BenchError("\(kind.name) is no ItemStore")
    }
    return store
}

/// One cell in this process, as the runner's child runs it: the workload's fixture, if it has one, loaded into a
/// new store of `kind` in `directory` (untimed), then the timed phase measured, each with a context of its own.
///
/// `end` runs the moment the timed phase ends (`CellExecution.measure`).
func measureCell(
    _ workload: any Workload, on kind: StoreKind, in directory: URL, scale: Int, seed: UInt64 = 42,
    batchSize: Int = 128, readRate: Double = WorkloadContext.defaultReadRate, timeBox: TimeBox = .none,
    readers: [Int]? = nil, shape: RecordShape? = nil, end: () -> Void = {}
) throws -> CellMetrics {
    func context() -> WorkloadContext {
        let parameters = CellParameters(
            scale: scale, seed: seed, batchSize: batchSize, timeBox: timeBox,
            extras: [.readRate(readRate)] + (readers.map { [.readers($0)] } ?? []) + (shape.map { [.shape($0)] } ?? []))
        var context = WorkloadContext(parameters: parameters, stopwatch: Stopwatch(), progress: ProgressReporter())
        // The tool, for a workload that starts a second process of it (`two-processes`).
        context.executable = toolExecutable.path
        return context
    }
    if workload.fixture != nil {
        try CellExecution.loadFixture(of: workload, into: kind, at: directory, context: context())
    }
    return try CellExecution.measure(workload, on: kind, at: directory, context: context(), end: end)
}

/// A bulk load as the workloads do it: the batch, then `finishInserting()` (where an object-graph store saves).
func load(_ items: [Item], into store: any ItemStore) throws {
    try store.insert(items)
    try store.finishInserting()
}

/// Every item in `store`, in id order.
func allItems(in store: any ItemStore) throws -> [Item] {
    var items: [Item] = []
    try store.forEachItem { items.append($0) }
    return items
}

/// Runs SQL with the sqlite3 command-line tool, which opens the file as any outside user would; its output.
func sqlite3(_ path: URL, _ sql: String) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
    process.arguments = [path.path, sql]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
}

/// The result of running the real `persistbench` executable.
struct ToolRun {
    let status: Int32
    let output: String
}

/// The freshly built `persistbench`, beside the test bundle; first used, it points this process's fixture cache at a
/// directory of its own (`testFixtureCache`).
let toolExecutable: URL = {
    testFixtureCache.touch()
    return URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        .appendingPathComponent("persistbench")
}()

/// The default fixture cache of every run this test process makes, in it or in a child.
///
/// Set by `XDG_CACHE_HOME`, which children inherit: shared by the tests of one `swift test`, never by two, and never
/// the user's `~/.cache/persistbench`, so that no test finds a fixture an earlier session built. Removed at exit.
let testFixtureCache = TestFixtureCache()

final class TestFixtureCache: Sendable {
    private static let home = FileManager.default.temporaryDirectory.appendingPathComponent(
        "persistbench-test-cache-\(getpid())")

    fileprivate init() {
        setenv("XDG_CACHE_HOME", Self.home.path, 1)
        atexit { try? FileManager.default.removeItem(at: TestFixtureCache.home) }
    }

    /// Makes sure the cache is set (the first use of `testFixtureCache` sets it).
    func touch() {}
}

/// Runs `persistbench` with `arguments`, capturing stdout and stderr.
func runTool(_ arguments: [String]) throws -> ToolRun {
    let process = Process()
    process.executableURL = toolExecutable
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ToolRun(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self))
}

/// An observer that shows nothing.
final class SilentObserver: RunObserver {
    func fixtureStarted(store: String, fixture: String, scale: Scale) {}
    func cellStarted(_ cell: PlannedCell, index: Int, total: Int) {}
    func progress(elapsedSeconds: Double, recordsDone: Int?) {}
    func cellFinished(_ result: CellResult, index: Int, total: Int) {}
}

/// Where `failingIfHung` keeps its alarms: a serial queue of its own, not a thread of Swift's concurrency pool.
private let hangAlarms = DispatchQueue(label: "PersistenceBenchTests.hang-alarms")

/// Runs `body` and stops the test process if it has not returned within `limit`: a hang detector whose clock runs
/// only while `body` runs.
///
/// Swift Testing's `.timeLimit` also counts the time a test waits for a thread of the concurrency pool, which the
/// end-to-end tests hold for minutes while their child processes run: under CI's load a test of a few milliseconds
/// exceeded a minute before it started. A hung `body` cannot be interrupted, so the alarm names it and exits.
func failingIfHung<Value>(
    after limit: TimeInterval = 60, _ what: String, _ body: () throws -> Value
) rethrows -> Value {
    let alarm = DispatchWorkItem {
        FileHandle.standardError.write(Data("\(what) has not returned after \(Int(limit)) s: a hang\n".utf8))
        exit(EXIT_FAILURE)
    }
    hangAlarms.asyncAfter(deadline: .now() + limit, execute: alarm)
    defer { alarm.cancel() }
    return try body()
}
