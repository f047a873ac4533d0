import Foundation
import Testing

@testable import PersistenceBench

/// `run --memory-limit`: each cell in a memory cgroup whose limit counts the page cache.
///
/// Where the machine has a writable memory controller (root, cgroup v1 or v2: CI's machines), a store that holds its
/// data on the heap is killed at the limit and its cell says so, while a store that reads through the page cache
/// finishes under it, charged no more than the limit; elsewhere the option is refused, naming what is missing.
@Suite struct MemoryLimitTests {
    @Test(.tags(.endToEnd), .timeLimit(.minutes(10)))
    func aHeapBoundStoreIsKilledAtTheLimitAndAMappedOneFinishesUnderIt() throws {
        let directory = try TemporaryDirectory()
        let out = directory.url.appendingPathComponent("capped").path
        // Other runs on the machine (a capped run beside the tests) have cgroups of their own: only this run's count.
        let before = Self.cgroups()
        let run = try runTool([
            "run", "--stores", "memory,sqlite", "--workloads", "insert,scan", "--scales", "100k", "--repetitions", "1",
            "--memory-limit", "24MiB", "--out", out,
        ])
        if case .failure(let missing) = MemoryCgroup.parent() {
            #expect(run.status == 2 && run.output.contains(missing.description), "\(run.output)")
            return
        }
        let results = try RunResults.load(from: URL(fileURLWithPath: out + "/results.json"))
        #expect(results.configuration.memoryLimitBytes == 24 << 20)
        let memory = results.cells.filter { $0.store == "memory" }
        #expect(!memory.isEmpty && memory.allSatisfy { $0.status == .dnf }, "\(memory.map(\.reason))")
        #expect(
            memory.allSatisfy { $0.reason?.hasPrefix(CellResult.killedAtMemoryLimit + " of 24.0 MiB") == true },
            "\(memory.map(\.reason))")
        let sqlite = results.cells.filter { $0.store == "sqlite" }
        #expect(sqlite.count == 2 && sqlite.allSatisfy { $0.status == .ok }, "\(sqlite.map(\.reason))")
        for cell in sqlite {
            let peak = try #require(cell.process?.cappedPeakBytes)
            #expect(peak > 1 << 20 && peak <= 24 << 20, "\(cell.workload): \(peak)")
        }
        let report = try String(contentsOfFile: out + "/report.md", encoding: .utf8)
        #expect(report.contains("| `memory` |") && report.contains("(killed at 100k: insert, scan)"), "\(report)")
        // No cgroup is left behind.
        let left = Self.cgroups().subtracting(before)
        #expect(left.isEmpty, "\(left)")
    }

    /// The runs' cgroups under the memory controller's parent, by name (`persistbench-<pid>`).
    static func cgroups() -> Set<String> {
        guard case .success(let (parent, _)) = MemoryCgroup.parent(),
            let names = try? FileManager.default.contentsOfDirectory(atPath: parent.path)
        else { return [] }
        return Set(names.filter { $0.hasPrefix("persistbench-") })
    }
}
