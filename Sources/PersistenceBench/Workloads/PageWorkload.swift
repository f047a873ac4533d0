/// `page`: 1,000 pages of 20 items filtered on the priority enum, sorted by the Bool `isInStock`, then title; under a
/// time box (`--time-box`), the first pages, as many as the group's count (`TimeBox`).
package struct PageWorkload: ItemWorkload {
    package init() {}
    package let name = "page"
    package let summary = "1,000 pages of 20: filter on the priority enum, sort by Bool isInStock then title, offset"
    package var fixture: Fixture? { .items }
    /// A page a list shows as the user scrolls: within a frame.
    package var report: WorkloadReport {
        WorkloadReport(appBudgets: [.p99("page p99 ≤ a frame", within: AppBudget.frame, source: AppBudget.frameSource)])
    }

    package static let queryCount = 1000
    package static let pageSize = 20
    /// Offsets are whole pages among the first 50, as a list a user scrolls.
    package static let pagesDeep = 50

    package func run(on store: any ItemStore, context: WorkloadContext) throws -> WorkloadOutcome {
        var check = PageCheck()
        let outcome = try context.askInTurn(
            Self.queries(seed: context.seed), ask: { (query: $0, page: try store.page($0)) }
        ) {
            answer, digest in
            if context.checksAnswers { check.check(answer.page, of: answer.query) }
            digest.add(Digest(answer.page))
            return 1
        }
        if let problem = check.problem { throw BenchError("page: \(problem)") }
        return outcome
    }

    /// One page, timed as one operation of `kind`, and its digest (untimed).
    static func answer(
        _ query: ItemPageQuery, from store: any ItemStore, kind: OperationKind, context: WorkloadContext
    ) throws -> Digest {
        let page = try context.stopwatch.measureOperation(kind) { try store.page(query) }
        context.progress.advance(by: 1)
        return Digest(page)
    }

    /// `count` seeded queries; `index` numbers independent sequences (0 is `page`'s own).
    static func queries(seed: UInt64, index: UInt64 = 0, count: Int = queryCount) -> [ItemPageQuery] {
        var rng = SplitMix64(seed: seed, stream: .queries, index: index)
        let priorities: [Item.Priority?] = [nil, .low, .medium, .high]
        return (0..<count).map { _ in
            ItemPageQuery(
                priority: priorities[Int(rng.below(4))], limit: pageSize,
                offset: Int(rng.below(UInt64(pagesDeep))) * pageSize)
        }
    }
}

/// What every page must be, whatever store answered it, checked (untimed) before its digest counts: no more items
/// than its limit, each of the priority asked, in page order (out of stock first, then title bytes, then id); and
/// across pages of one priority, every page full before the first short one, and every page after it empty.
///
/// A group of one store has no other store's digest to disagree with: this is its check.
struct PageCheck {
    /// The first problem found, if any.
    private(set) var problem: String?
    /// Per priority asked, the largest offset of a full page and the smallest of a short one (its item count).
    private var fullest: [Int: Int] = [:]
    private var firstShort: [Int: (offset: Int, count: Int)] = [:]

    mutating func check(_ page: [Item], of query: ItemPageQuery) {
        guard problem == nil else { return }
        let key = query.priority.map { Int($0.rawValue) } ?? -1
        let asked = "a page at offset \(query.offset) of priority \(query.priority.map { "\($0)" } ?? "none")"
        if page.count > query.limit {
            problem = "\(asked) holds \(page.count) items, more than its limit of \(query.limit)"
        } else if let stray = page.first(where: { $0.priority != query.priority }) {
            problem = "\(asked) holds item \(stray.id), of another priority"
        } else if let index = page.indices.dropFirst().first(where: { !Self.precedes(page[$0 - 1], page[$0]) }) {
            problem = "\(asked): item \(page[index].id) out of order after item \(page[index - 1].id)"
        }
        if page.count == query.limit {
            fullest[key] = max(fullest[key] ?? query.offset, query.offset)
        } else if query.offset < firstShort[key]?.offset ?? Int.max {
            firstShort[key] = (query.offset, page.count)
        }
        if let short = firstShort[key] {
            if let full = fullest[key], full > short.offset {
                problem =
                    "\(asked): a full page at offset \(full) after a short one (\(short.count) items) at \(short.offset)"
            } else if query.offset >= short.offset + short.count, !page.isEmpty {
                problem = "\(asked) holds \(page.count) items past the end, \(short.offset + short.count) items"
            }
        }
    }

    /// Whether `a` comes before `b` in page order.
    private static func precedes(_ a: Item, _ b: Item) -> Bool {
        if a.isInStock != b.isInStock { return !a.isInStock }
        if a.title != b.title { return a.title.utf8.lexicographicallyPrecedes(b.title.utf8) }
        return a.id < b.id
    }
}
