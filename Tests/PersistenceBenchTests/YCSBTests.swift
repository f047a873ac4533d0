import Foundation
import Testing

@testable import PersistenceBench

/// YCSB's operation mixes and key distributions, drawn as YCSB draws them; the stores' agreement on every
/// YCSB workload is in `StoreConformanceTests.everyStoreGivesTheSameDigests`.
@Suite struct YCSBTests {
    static let records = 10_000
    static let count = 20_000

    func operations(_ letter: YCSBWorkload.Letter) -> [YCSBWorkload.Operation] {
        YCSBWorkload.operations(YCSBWorkload(letter).mix, records: Self.records, count: Self.count, seed: 42)
    }

    func fractions(_ operations: [YCSBWorkload.Operation]) -> [String: Double] {
        var counts: [String: Int] = [:]
        for operation in operations { counts[operation.kind.rawValue, default: 0] += 1 }
        return counts.mapValues { Double($0) / Double(operations.count) }
    }

    @Test(arguments: [
        (YCSBWorkload.Letter.a, ["READ": 0.5, "UPDATE": 0.5]),
        (.b, ["READ": 0.95, "UPDATE": 0.05]),
        (.c, ["READ": 1.0]),
        (.d, ["READ": 0.95, "INSERT": 0.05]),
        (.e, ["SCAN": 0.95, "INSERT": 0.05]),
        (.f, ["READ": 0.5, "READ-MODIFY-WRITE": 0.5]),
    ])
    func mixesHaveYCSBsProportions(letter: YCSBWorkload.Letter, proportions: [String: Double]) {
        let drawn = operations(letter)
        #expect(drawn.count == Self.count)
        let measured = fractions(drawn)
        #expect(Set(measured.keys) == Set(proportions.keys))
        for (kind, proportion) in proportions {
            // 20,000 draws: the standard error of a proportion is at most 0.0036.
            #expect(abs((measured[kind] ?? 0) - proportion) < 0.015, "\(letter) \(kind): \(measured[kind] ?? 0)")
        }
    }

    @Test func theSameSeedDrawsTheSameOperationsAndAnotherSeedOthers() {
        let mix = YCSBWorkload(.a).mix
        let first = YCSBWorkload.operations(mix, records: 1000, count: 500, seed: 1)
        #expect(first == YCSBWorkload.operations(mix, records: 1000, count: 500, seed: 1))
        #expect(first != YCSBWorkload.operations(mix, records: 1000, count: 500, seed: 2))
    }

    @Test func keysAreZipfianOverTheRecordsAndInsertsAppend() {
        var lastID = Int64(Self.records)
        var readCounts: [Int64: Int] = [:]
        for operation in operations(.e) {
            switch operation {
            case .insert(let id):
                #expect(id == lastID + 1)
                lastID = id
            case .scan(let id, let length):
                #expect((1...lastID).contains(id))
                #expect((1...YCSBWorkload.maxScanLength).contains(length))
                readCounts[id, default: 0] += 1
            default:
                Issue.record("workload E draws only scans and inserts: \(operation)")
            }
        }
        // Zipfian 0.99: the most popular start key is drawn far more often than the uniform 2 per key.
        #expect((readCounts.values.max() ?? 0) > 500)
        #expect(readCounts.count < Self.records)
    }

    @Test func latestFavoursTheNewestRecords() {
        var lastID = Int64(Self.records)
        var distances: [Int64] = []
        for operation in operations(.d) {
            switch operation {
            case .insert(let id): lastID = id
            case .read(let id):
                #expect((1...lastID).contains(id))
                distances.append(lastID - id)
            default: Issue.record("workload D draws only reads and inserts: \(operation)")
            }
        }
        // The newest record is the single most read one; half the reads fall within the newest few hundred.
        let newest = distances.filter { $0 == 0 }.count
        #expect(Double(newest) / Double(distances.count) > 0.05)
        #expect(distances.sorted()[distances.count / 2] < 500)
    }

    @Test func perOperationLatenciesAreNamedAndCounted() throws {
        let directory = try TemporaryDirectory()
        let kind = try storeKind("sqlite")
        let metrics = try measureCell(YCSBWorkload(.f), on: kind, in: directory.url, scale: 500, batchSize: 100)
        let byKind = try #require(metrics.phase.latencyByOperation)
        #expect(Set(byKind.keys) == ["READ", "READ-MODIFY-WRITE"])
        #expect(byKind.values.map(\.count).reduce(0, +) == 500)
        #expect(metrics.phase.latency?.count == 500)
        // A read-modify-write commits durably; a read does not.
        #expect(byKind["READ-MODIFY-WRITE"]!.p50 > byKind["READ"]!.p50)
    }
}
