/// `search`: search as you type.
///
/// Seeded typing sessions over the items' titles, one character at a time; every keystroke is one question
/// (`TitleSearch`): how many titles contain the text so far, ASCII case-insensitively, and the first page of 20 of them
/// by title, then id. Each keystroke is timed alone: the cell's latency percentiles are keystrokes', and its latency
/// summary counts those over a frame and over 100 ms.
///
/// `search-one-statement` asks the same keystrokes of `SearchStore.searchInOneStatement`: the SQL stores answer each
/// with one statement (`COUNT(*) OVER ()` beside the page), where `search` asks a count and a page, two passes over
/// what matches.
package struct SearchWorkload: ItemWorkload {
    package init(oneStatement: Bool = false) {
        self.oneStatement = oneStatement
    }

    /// Each keystroke answered by one statement (`search-one-statement`).
    let oneStatement: Bool

    package var name: String { oneStatement ? "search-one-statement" : "search" }
    package var summary: String {
        oneStatement
            ? "search's keystrokes, each answered by one statement where the store has statements: the page with "
                + "the count of every match beside each row (COUNT(*) OVER ())"
            : "search as you type: 150 seeded sessions of 4–12 keystrokes over item titles; a keystroke is one "
                + "question, the count of titles containing the text (ASCII case-insensitive) and the first 20 by "
                + "title, id"
    }
    package var fixture: Fixture? { .items }
    /// A keystroke's result: within a frame, and within the limit of feeling instantaneous.
    package var report: WorkloadReport {
        WorkloadReport(
            judgedAgainstBudgets: true,
            appBudgets: [
                .p99("keystroke p99 ≤ a frame", within: AppBudget.frame, source: AppBudget.frameSource),
                .p99("keystroke p99 ≤ 100 ms", within: AppBudget.instant, source: AppBudget.instantSource),
            ])
    }

    /// 150 sessions of 4–12 characters type about 1,200 keystrokes (at least 1,000 at every seed and scale tried,
    /// `SearchTests`): enough for the budget floor (`TimeBox.budgetSamples`), so that a keystroke p99 rests on
    /// 1,000 samples wherever the store answers them within the floor's time.
    package static let sessionCount = 150
    package static let pageSize = 20
    package static let shortestText = 4
    package static let longestText = 12
    /// Every fifth session types a text no title contains: a piece of a title, then a hyphen (no generated title
    /// has one) and letters, as a typo or an absent product does.
    package static let unmatchedEvery = 5
    /// Every third session types the title's own capitals; the others type lowercase, as users mostly do.
    package static let ownCaseEvery = 3
    /// The fewest keystrokes the time box lets a cell do (`TimeBox`): its p99 then rests on at least 200 samples
    /// (the second slowest), however slow every keystroke of the slowest store.
    package static let minimumKeystrokes = 200

    package var capability: StoreCapability { .search }

    package func run(on store: any ItemStore, context: WorkloadContext) throws -> WorkloadOutcome {
        let searching = try requireCapability(store, (any SearchStore).self, for: "workload \(name)")
        let keystrokes = Self.keystrokes(seed: context.seed, scale: context.scale)
        var box = context.timeBox.start(
            steps: keystrokes.count, minimum: min(keystrokes.count, Self.minimumKeystrokes))
        var digest = Digest()
        var prefix: DigestPrefix?
        var done = 0
        while box.allowsMore(after: done) {
            let search = keystrokes[done]
            let answer = try context.stopwatch.measureOperation {
                try oneStatement ? searching.searchInOneStatement(search) : searching.search(search)
            }
            digest.add(answer.count)
            digest.add(Digest(answer.page))
            context.progress.advance(by: 1)
            done += 1
            if done == box.minimum, context.timeBox.floor != nil { prefix = DigestPrefix(steps: done, digest: digest) }
        }
        return WorkloadOutcome(
            operations: done, digest: digest, timeBoxed: box.stoppedEarly(after: done), steps: done, prefix: prefix,
            stoppedShort: box.stoppedShort(after: done))
    }

    /// Every keystroke of every session, in typing order: each session's text, one character more each time.
    ///
    /// `index` numbers independent sequences (0 is `search`'s own).
    package static func keystrokes(seed: UInt64, scale: Int, index: UInt64 = 0) -> [TitleSearch] {
        texts(seed: seed, scale: scale, index: index).flatMap { text in
            (1...text.count).map { TitleSearch(text: String(text.prefix($0)), limit: pageSize) }
        }
    }

    /// The sessions' whole texts: a piece of 4–12 characters of a stored item's title (leading spaces dropped),
    /// lowercase but in every `ownCaseEvery`th session; every `unmatchedEvery`th session the piece's first 2–4
    /// characters, a hyphen and letters.
    package static func texts(seed: UInt64, scale: Int, index: UInt64 = 0) -> [String] {
        precondition(scale >= 1, "search needs at least one stored item")
        var rng = SplitMix64(seed: seed, stream: .searchSessions, index: index)
        let items = ItemGenerator(seed: seed)
        return (0..<sessionCount).map { session in
            let length = shortestText + Int(rng.below(UInt64(longestText - shortestText + 1)))
            let title = Array(items.item(id: 1 + Int64(rng.below(UInt64(scale)))).title.utf8)
            let take = min(length, title.count)
            var piece = Array(title[Int(rng.below(UInt64(title.count - take + 1)))...].prefix(take))
            while piece.count > 1, piece.first == 0x20 { piece.removeFirst() }
            if session % ownCaseEvery != 0 { piece = piece.map(TitleMatcher.folded) }
            if session % unmatchedEvery == unmatchedEvery - 1 {
                piece = Array(piece.prefix(2 + Int(rng.below(3)))) + [UInt8(ascii: "-")]
                while piece.count < length { piece.append(UInt8(ascii: "a") + UInt8(rng.below(26))) }
            }
            return String(decoding: piece, as: UTF8.self)
        }
    }
}
