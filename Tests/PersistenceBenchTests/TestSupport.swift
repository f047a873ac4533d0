import Foundation
import PersistenceBench
import StoreCatalog

/// Every store under test, as the tool lists them.
let allStoreKinds = StoreCatalog.all
let allStoreNames = allStoreKinds.map(\.name)
/// The stores with each capability.
let itemStoreNames = allStoreKinds.filter { $0.type is any ItemStore.Type }.map(\.name)
let associationStoreNames = allStoreKinds.filter { $0.type is any AssociationStore.Type }.map(\.name)
let houseStoreNames = allStoreKinds.filter { $0.type is any HouseStore.Type }.map(\.name)

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

/// Opens a store of `kind` in `directory` as an `ItemStore`.
func openItemStore(_ kind: StoreKind, at directory: URL) throws -> any ItemStore {
    guard let store = try kind.open(directory) as? any ItemStore else {
        throw BenchError("\(kind.name) is no ItemStore")
    }
    return store
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

/// The freshly built `persistbench`, beside the test bundle.
let toolExecutable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
    .appendingPathComponent("persistbench")

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
