import Foundation
import Reports
import Testing

@testable import PersistenceBench

/// `search`: every store answers the same keystrokes with the same count and page, on titles chosen to trip case
/// folding, `LIKE`'s wildcards and FTS5's phrase quoting, before and after writes that its index must follow.
@Suite struct SearchTests {

    /// Mixed case, words inside words, LIKE's `%` and `_`, a quote, a title shorter than a trigram, non-ASCII bytes.
    static let titles = [
        "Apple Pie", "APPLE", "pineapple", "Crab apple", "grapple hook", "apPle", "Ap", "100% off_sale",
        "100 percent off", "He said \"hi\"", "Äpfel", "äpfel", "Zipper", "zip", "a_b", "axb",
    ]
    /// Texts as typed, ASCII: each store must fold ASCII case, take `%` and `_` literally, quote `"` for FTS5, and
    /// find texts shorter than three characters without an index. (Non-ASCII texts: `fullTextIndexesFoldBeyondASCII`.)
    static let texts = [
        "apple", "APP", "pLe", "a", "ap", "%", "_", "% off_", "\"hi\"", "zzz", "e p", "zip", "a_b", "pfel", "PFEL",
    ]

    static func items(_ titles: [String]) -> [Item] {
        titles.enumerated().map { offset, title in
            Item(
                id: Int64(offset + 1), title: title, notes: "", isInStock: offset % 2 == 0, priority: nil,
                price: Double(offset), createdAt: Date(timeIntervalSince1970: Double(offset)))
        }
    }

    /// The answer by definition: ASCII letters folded, every other byte equal; by title bytes, then id.
    static func expected(_ text: String, in items: [Item], limit: Int) -> TitleSearchAnswer {
        func folded(_ string: String) -> [UInt8] { string.utf8.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 } }
        let needle = folded(text)
        let matching = items.filter { item in
            let title = folded(item.title)
            return stride(from: 0, through: title.count - needle.count, by: 1).contains {
                title[$0..<$0 + needle.count].elementsEqual(needle)
            }
        }
        .sorted { $0.title == $1.title ? $0.id < $1.id : $0.title.utf8.lexicographicallyPrecedes($1.title.utf8) }
        return TitleSearchAnswer(count: matching.count, page: Array(matching.prefix(limit)))
    }

    /// Both ways of answering (`search`, `searchInOneStatement`), a count and a page or one statement.
    @Test(arguments: searchStoreNames)
    func answersAgreeOnMixedCaseAndWildcardsBeforeAndAfterWrites(store name: String) throws {
        let directory = try TemporaryDirectory()
        let store = try #require(try storeKind(name).open(directory.url) as? any SearchStore)
        var items = Self.items(Self.titles)
        try load(items, into: store)
        func checkEveryText(_ moment: String) throws {
            for text in Self.texts {
                let search = TitleSearch(text: text, limit: 3)
                let expected = Self.expected(text, in: items, limit: 3)
                #expect(try store.search(search) == expected, "\(name) \(moment): \"\(text)\"")
                #expect(try store.searchInOneStatement(search) == expected, "\(name) one statement: \"\(text)\"")
            }
        }
        try checkEveryText("after the load")
        // An index must follow updates, deletes and single inserts in their own transactions.
        let update = ItemUpdate(id: 3, title: "PINEAPPLE juice", isInStock: true, price: 1)
        try store.update([update])
        update.apply(to: &items[2])
        try store.delete(ids: [1, 7])
        items.removeAll { $0.id == 1 || $0.id == 7 }
        let late = Self.items(Self.titles + ["Toffee Apple"]).last!
        try store.insertDurably(late)
        items.append(late)
        try checkEveryText("after writes")
        try store.close()
    }

    /// What `docs/workloads.md` says of text beyond ASCII: `LIKE` and the scans fold ASCII letters only, so "äpf"
    /// finds "äpfel" and not "Äpfel"; FTS5's `trigram` tokenizer folds case as Unicode does and finds both.
    ///
    /// The generator's titles are ASCII, so the workload's answers agree everywhere.
    @Test(arguments: searchStoreNames)
    func fullTextIndexesFoldBeyondASCII(store name: String) throws {
        let directory = try TemporaryDirectory()
        let store = try #require(try storeKind(name).open(directory.url) as? any SearchStore)
        try load(Self.items(Self.titles), into: store)
        let found = try store.search(TitleSearch(text: "äpf", limit: 5)).page.map(\.title)
        #expect(found == (name.hasSuffix("+fts") ? ["Äpfel", "äpfel"] : ["äpfel"]), "\(name)")
        try store.close()
    }

    /// The scans' matcher: ASCII letters fold, nothing else does.
    @Test func onlyASCIILettersFold() {
        #expect(TitleMatcher("apple").matches("Crab APPLE"))
        #expect(!TitleMatcher("äpfel").matches("Äpfel"))
        #expect(TitleMatcher("äpfel").matches("äpfel"))
        #expect(TitleMatcher("").matches("anything"))
        #expect(!TitleMatcher("longer than the title").matches("short"))
    }

    /// The sessions are the seed's: the same texts every time, every matching one a piece of a stored title (so its
    /// count is never 0), every fifth one a text no title has, each typed one character at a time.
    @Test func sessionsComeFromTheDataAndTypeOneCharacterAtATime() {
        let scale = 2_000
        let texts = SearchWorkload.texts(seed: 42, scale: scale)
        #expect(texts == SearchWorkload.texts(seed: 42, scale: scale))
        #expect(texts != SearchWorkload.texts(seed: 43, scale: scale))
        #expect(texts.count == SearchWorkload.sessionCount)
        let titles = ItemGenerator(seed: 42).items(1...Int64(scale)).map(\.title)
        for (session, text) in texts.enumerated() {
            #expect(text.count <= SearchWorkload.longestText && !text.hasPrefix(" "), "\(text)")
            let unmatched = session % SearchWorkload.unmatchedEvery == SearchWorkload.unmatchedEvery - 1
            #expect(titles.contains(where: TitleMatcher(text).matches) == !unmatched, "\(session): \(text)")
        }
        // One stored item is enough: every matching session is a piece of its title.
        let title = ItemGenerator(seed: 7).item(id: 1).title
        for (session, text) in SearchWorkload.texts(seed: 7, scale: 1).enumerated()
        where session % SearchWorkload.unmatchedEvery != SearchWorkload.unmatchedEvery - 1 {
            #expect(!text.isEmpty && TitleMatcher(text).matches(title), "\(text) in \(title)")
        }
        let keystrokes = SearchWorkload.keystrokes(seed: 42, scale: scale)
        #expect(keystrokes.count == texts.map(\.count).reduce(0, +))
        // Enough for a p99 of 1,000 keystrokes (the budget floor), in search's own sequence and in every reader's.
        for seed: UInt64 in [1, 7, 42, 43] {
            for scale in [1, 2_000, 1_000_000] {
                for index: UInt64 in [0, 1, 4_097, 8_200] {
                    let count = SearchWorkload.keystrokes(seed: seed, scale: scale, index: index).count
                    #expect(count >= TimeBox.budgetSamples, "seed \(seed), scale \(scale), sequence \(index): \(count)")
                }
            }
        }
        #expect(keystrokes.prefix(3).map(\.text) == texts[0].prefix(3).indices.map { String(texts[0][...$0]) })
    }

    /// A latency summary counts its samples over a frame and over 100 ms, within the histogram's precision.
    @Test func latencySummariesCountWhatMissedTheBudgets() throws {
        let summary = try #require(
            LatencySummary(nanoseconds: [1_000_000, 16_000_000, 16_800_000, 99_000_000, 150_000_000]))
        #expect(summary.overFrame == 3)
        #expect(summary.overLate == 1)
    }

    /// The report names, per store, the largest scale whose p99 stays within each budget, and where it went over.
    @Test func theReportNamesTheLargestScaleWithinEachBudget() {
        let environment = RunEnvironment(
            cpuModel: "Test CPU", cores: 2, memoryBytes: 1 << 30, kernel: "Linux", hostname: "h", swift: "Swift",
            engines: [:], gitCommit: "abc", command: "persistbench run")
        let scales = [10_000, 100_000, 1_000_000].map(Scale.init(records:))
        let configuration = RunConfiguration(
            stores: ["slow", "fast"], workloads: ["search"], scales: scales, repetitions: 1, seed: 1, batchSize: 10,
            timeBudgetSeconds: 60, memoryBudgetBytes: 1 << 30, keepStores: false)
        var results = RunResults(
            environment: environment, configuration: configuration, startedAt: Date(timeIntervalSince1970: 0))
        func cell(_ store: String, _ scale: Scale, p99Milliseconds: Double) -> CellResult {
            let latencies = (0..<200).map { UInt64(($0 < 197 ? 1 : p99Milliseconds) * 1e6) }
            return CellResult(
                CellID(store: store, workload: "search", scale: scale, repetition: 1), status: .ok,
                metrics: CellMetrics(
                    phase: PhaseFigures(
                        timedSeconds: 1, operations: 200, latency: LatencySummary(nanoseconds: latencies)),
                    resources: ResourceFigures(bytesOnDisk: 1),
                    verification: CellVerification(digest: Digest(count: 1, hash: 1))))
        }
        results.cells =
            zip(scales, [5.0, 40, 400]).map { cell("slow", $0, p99Milliseconds: $1) }
            + scales.map { cell("fast", $0, p99Milliseconds: 2) }
        let markdown = MarkdownReport.render(results)
        #expect(
            markdown.contains(
                "| `slow` | 10k (over at 100k: p99 of 200: 40 ms, 3 over) | 100k (over at 1M: p99 of 200: 400 ms, 3 over) |"
            ),
            "\(markdown)")
        #expect(
            markdown.contains(
                "| `fast` | ≥ 1M measured (p99 of 200: 2 ms, 0 over); flat | ≥ 1M measured (p99 of 200: 2 ms, 0 over); flat |"
            ), "\(markdown)")
        #expect(markdown.contains("| `slow` | 1M | 1.00 / 400 / 400 | 3 of 200 | 3 of 200 |"), "\(markdown)")
    }
}

extension TitleMatcher {
    /// Whether `title` contains the text: the stores offer bytes; the tests ask of strings.
    func matches(_ title: String) -> Bool {
        var title = title
        return title.withUTF8 { matches($0) }
    }
}
