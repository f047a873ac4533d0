import Foundation
import PersistenceBench
import StoreCatalog
import Testing

/// A group whose stores disagree is asked again, and the first answer that differs is named with each store's.
@Suite struct AnswerDifferenceTests {
    /// `memory`, but item 7's title read back wrong: a store with one wrong answer.
    final class Misreading: ItemStore {
        let base: any ItemStore
        init(_ base: any ItemStore) { self.base = base }

        private func misread(_ item: Item?) -> Item? {
            guard var item, item.id == 7 else { return item }
            item.title += " (misread)"
            return item
        }

        func insert(_ batch: [Item]) throws { try base.insert(batch) }
        func insertDurably(_ item: Item) throws { try base.insertDurably(item) }
        func item(id: Int64) throws -> Item? { misread(try base.item(id: id)) }
        func forEachItem(_ body: (Item) throws -> Void) throws {
            try base.forEachItem { item in if let item = misread(item) { try body(item) } }
        }
        func count(where filter: ItemFilter) throws -> Int { try base.count(where: filter) }
        func count(pricedIn range: PriceRange) throws -> Int { try base.count(pricedIn: range) }
        func page(_ query: ItemPageQuery) throws -> [Item] { try base.page(query) }
        func items(startingAt id: Int64, limit: Int) throws -> [Item] { try base.items(startingAt: id, limit: limit) }
        func update(_ updates: [ItemUpdate]) throws { try base.update(updates) }
        func delete(ids: [Int64]) throws { try base.delete(ids: ids) }
        func close() throws { try base.close() }
    }

    static func misreadingKind() throws -> StoreKind {
        let memory = try storeKind("memory")
        return StoreKind(
            name: "misreading", summary: "memory with item 7 misread", durability: "none", configuration: "",
            engine: { "none" }, type: Misreading.self,
            open: { directory in
                guard let store = try memory.open(directory) as? any ItemStore else { throw BenchError("no items") }
                return Misreading(store)
            })
    }

    static let seed = RunConfiguration.defaultSeed

    /// The two stores' digests of `workload`, as a run records them: they disagree.
    static func digests(_ workload: String, scale: Int) throws -> [String: [Digest]] {
        var digests: [String: [Digest]] = [:]
        for kind in [try storeKind("memory"), try misreadingKind()] {
            let temporary = try TemporaryDirectory()
            let workload = try #require(WorkloadCatalog.workload(named: workload))
            let metrics = try measureCell(workload, on: kind, in: temporary.url, scale: scale, seed: seed)
            digests[kind.name] = [metrics.digest]
        }
        #expect(digests["memory"] != digests["misreading"])
        return digests
    }

    @Test func aScanNamesItem7AndBothTitles() throws {
        let temporary = try TemporaryDirectory()
        let scratch = temporary.url.appendingPathComponent("asked")
        let difference = try #require(
            AnswerDifference.find(
                workload: "scan", scale: Scale(records: 300), digests: try Self.digests("scan", scale: 300),
                steps: nil, stores: [try storeKind("memory"), try Self.misreadingKind()],
                configuration: RunConfiguration(
                    stores: [], workloads: ["scan"], scales: [Scale(records: 300)], repetitions: 1,
                    timeBoxSeconds: nil),
                scratch: scratch))
        #expect(difference.reference == "memory")
        // The scan's 7th answer is item 7 (a scan changes nothing, so nothing is read back after it).
        #expect(difference.position == 7)
        #expect(difference.compared == 300)
        let expected = ItemGenerator(seed: Self.seed).item(id: 7)
        #expect(difference.answers["memory"]?.contains("title \"\(expected.title)\"") == true)
        #expect(difference.answers["misreading"]?.contains("title \"\(expected.title) (misread)\"") == true)
        #expect(difference.summary.hasPrefix("first differing answer, 7 of 300 compared: memory: item 7"))
        #expect(!FileManager.default.fileExists(atPath: scratch.path))
    }

    /// A digest made while nothing records notes nothing, and equal answers give equal digests either way.
    @Test func recordingChangesNoDigest() throws {
        let items = ItemGenerator(seed: 3).items(1...50)
        let plain = Digest(items)
        let trace = AnswerTrace()
        let recorded = AnswerTrace.recording(into: trace) { Digest(items) }
        #expect(plain == recorded)
        #expect(trace.answers.count == 50)
        #expect(trace.answers.first?.hasPrefix("item 1 title") == true)
        _ = Digest(items)
        #expect(trace.answers.count == 50, "a digest made after the recording noted its answers")
    }
}
