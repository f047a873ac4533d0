import Foundation
import PersistenceBench
import Testing

/// A write workload's timed phase ends with the store's files as a reopen finds them: no write-ahead log left for
/// the untimed close to checkpoint.
@Suite struct SettleTests {
    static let writeWorkloads = ["insert", "insert-each", "update", "delete", "unique-title", "ycsb-a"]

    @Test(arguments: allStoreNames)
    func writeWorkloadsCheckpointInsideTheTimedPhase(store: String) throws {
        let kind = try storeKind(store)
        for name in Self.writeWorkloads {
            guard let workload = WorkloadCatalog.workload(named: name), workload.applies(to: kind) else { continue }
            let temporary = try TemporaryDirectory()
            let directory = temporary.url
            var logBytesAtEnd: [String: Int64] = [:]
            let metrics = try measureCell(
                workload, on: kind, in: directory, scale: 600, seed: 7, batchSize: 100,
                end: {
                    // The moment the timed phase ends, before the digest read-back and the close.
                    for file in (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
                    where file.hasSuffix("-wal") {
                        let attributes = try? FileManager.default.attributesOfItem(
                            atPath: directory.appendingPathComponent(file).path)
                        logBytesAtEnd[file] = (attributes?[.size] as? NSNumber)?.int64Value ?? -1
                    }
                })
            #expect(
                logBytesAtEnd.values.allSatisfy { $0 == 0 },
                "\(store) \(name): write-ahead log left for after the timer: \(logBytesAtEnd)")
            #expect(metrics.phase.settleSeconds != nil, "\(store) \(name): no settle in the timed phase")
            #expect(metrics.phase.timedSeconds >= metrics.phase.settleSeconds ?? 0)
        }
    }

    @Test func readWorkloadsHaveNothingToSettle() throws {
        let kind = try storeKind("sqlite")
        let temporary = try TemporaryDirectory()
        let workload = try #require(WorkloadCatalog.workload(named: "get"))
        let metrics = try measureCell(workload, on: kind, in: temporary.url, scale: 1_000, seed: 7, batchSize: 100)
        #expect(metrics.phase.settleSeconds == nil)
    }
}
