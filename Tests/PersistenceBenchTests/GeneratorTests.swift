import Foundation
import PersistenceBench
import Testing

@Suite struct GeneratorTests {
    @Test func sameSeedGivesIdenticalItemsInAnyOrder() {
        let a = ItemGenerator(seed: 99)
        let b = ItemGenerator(seed: 99)
        let forward = a.items(1...2000)
        let backward = (1...2000).reversed().map { b.item(id: Int64($0)) }.reversed()
        #expect(forward == Array(backward))
        #expect(ItemGenerator(seed: 100).items(1...10) != a.items(1...10))
    }

    @Test func fieldsStayInTheirDocumentedRanges() {
        let items = ItemGenerator(seed: 3).items(1...20_000)
        #expect(items.allSatisfy { (8...40).contains($0.title.utf8.count) })
        #expect(items.allSatisfy { $0.notes.utf8.count <= 200 })
        #expect(items.allSatisfy { $0.price >= 0 && $0.price < 1000 && ($0.price * 100).rounded() / 100 == $0.price })
        let priorities = Dictionary(grouping: items, by: \.priority).mapValues(\.count)
        #expect(priorities.count == 4)
        #expect(priorities.values.allSatisfy { abs($0 - 5000) < 400 })
        let inStock = items.filter(\.isInStock).count
        #expect(abs(inStock - 14_000) < 500)
        // Dates are whole milliseconds and increase with id.
        #expect(zip(items, items.dropFirst()).allSatisfy { $0.createdAt < $1.createdAt })
        #expect(
            items.allSatisfy {
                let ms = $0.createdAt.timeIntervalSince1970 * 1000
                return abs(ms - ms.rounded()) < 1e-3
            })
    }

    @Test func aboutFivePercentOfTitlesRepeatAnEarlierOne() {
        let items = ItemGenerator(seed: 5).items(1...20_000)
        let duplicates = items.count - Set(items.map(\.title)).count
        #expect(duplicates > 800 && duplicates < 1200, "duplicates: \(duplicates)")
    }

    @Test(arguments: [1, 2, 3, 10, 1000, 4097])
    func seededPermutationIsABijection(count: Int) {
        let permutation = SeededPermutation(count: count, seed: 11, stream: .updateSelection)
        let values = (0..<count).map { permutation[$0] }
        #expect(Set(values) == Set(0..<count))
        if count >= 1000 { #expect(values != Array(0..<count)) }
    }

    @Test func zipfianKeysAreInRangeAndSkewed() {
        let zipfian = ZipfianGenerator(count: 10_000)
        var rng = SplitMix64(seed: 1)
        var counts: [Int: Int] = [:]
        for _ in 0..<100_000 { counts[zipfian.next(using: &rng), default: 0] += 1 }
        #expect(counts.keys.allSatisfy { (0..<10_000).contains($0) })
        // With theta 0.99 over 10k keys the most popular key takes about 10% of draws; uniform would give 0.01%.
        let top = counts.values.max() ?? 0
        #expect(top > 5_000 && top < 15_000, "top: \(top)")
    }

    @Test func digestIsOrderSensitiveAndRoundTrips() throws {
        let items = ItemGenerator(seed: 1).items(1...3)
        var forward = Digest()
        var backward = Digest()
        items.forEach { forward.add($0) }
        items.reversed().forEach { backward.add($0) }
        #expect(forward != backward)
        #expect(forward.count == 3)
        #expect(Digest(forward.description) == forward)
        let data = try JSONEncoder().encode(forward)
        #expect(try JSONDecoder().decode(Digest.self, from: data) == forward)
        var changed = items
        changed[1].price += 0.01
        var other = Digest()
        changed.forEach { other.add($0) }
        #expect(other != forward)
    }
}
