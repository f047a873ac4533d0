import Foundation

// MARK: - The workload

/// `get-readers`, `page-readers` and `search-readers`: an app's reads on K threads at once, alone and while the
/// store's own thread commits.
///
/// A store of N items. For each level of readers K (`--readers`, 1, 2, 4 and 8 unless told otherwise), K threads
/// each open the store's reader for another thread (`ConcurrentReadStore.makeConcurrentReader`: GRDB's pool or
/// queue, a connection of `sqlite`'s own, a context of the ORM's own, an LMDB read transaction, `packed`'s published
/// snapshot, the heap stores' lock) and ask questions of their own, back to back: min(N, 1,000) lookups by id
/// (`get-readers`), 1,000 pages of `page`'s queries less those of no priority (`page-readers`), or 1,000 keystrokes of
/// `search`'s sessions (`search-readers`), drawn afresh (a seeded sequence of its own) for every thread, level and
/// phase, so that no phase's first pass asks what an earlier one warmed. At each level: the writer alone (M =
/// min(N / 10, 1,000) new items, one durable commit each, as `insert-each` does); the readers alone, for as long as
/// the writer took alone and at least `floorSeconds`; then the readers again while the writer inserts M more, and goes
/// on inserting (the same durable inserts of items no reader asks for, untimed, deleted after the window) until it
/// has run `floorSeconds`. A reader that has asked its questions goes on asking them again until the writer is done,
/// so every commit has every reader beside it; its first pass is reported apart from the repeats, and the budget
/// judges first passes only. The order alternates: at the next level the readers beside the writer come first, then
/// the writer alone and the readers alone.
///
/// The answers do not depend on timing: the lookups touch only ids up to N, which the writer never changes, and the
/// writer's items for pages and keystrokes have no priority (no reader's page asks for it) and titles of `~` and `_`
/// (no typed text has either). Every later pass of a thread's questions must answer as its first, and the digest
/// holds every first pass and the store's items after the cell: the writer's timed inserts, each run of them above
/// its own base (`writerIDs`).
///
/// The cell's ops/s and latency are the writer's commits, in every phase; `ReadersMetrics` has the reads.
package struct ReadersWorkload: ItemWorkload {
    /// What the readers ask.
    package enum Question: String, Sendable, CaseIterable {
        case get, page, search
    }

    /// The levels of readers unless `--readers` says otherwise.
    package static let defaultLevels = [1, 2, 4, 8]

    package let question: Question

    package init(_ question: Question) { self.question = question }

    package var name: String { "\(question.rawValue)-readers" }
    package var summary: String {
        let asked =
            switch question {
            case .get: "look up min(N, 1,000) items each"
            case .page: "ask `page`'s pages of a priority, about 750 each"
            case .search: "type 1,000 keystrokes of `search`'s sessions each"
            }
        return "K threads (--readers, default 1,2,4,8) \(asked) through the store's reader for another thread, alone "
            + "and while the store's thread inserts min(N / 10, 1,000) items one durable commit each (for 0.25 s at "
            + "least); the writer alone at every level. ops/s and latency: the writer's commits; the readers table "
            + "has the reads"
    }
    package var fixture: Fixture? { .items }
    /// A UI's reads while a background task commits, on as many threads as the machine has cores.
    package var report: WorkloadReport {
        WorkloadReport(
            appBudgets: [
                AppBudget.p99(
                    "\(Self.budgetNames[question] ?? "read") p99 ≤ a frame beside a writer, K = cores, first passes",
                    within: AppBudget.frame,
                    source: AppBudget.frameSource
                ) { Self.levelAtCores($0.figures?.readers)?.besideWriter.firstPassLatency }
            ])
    }

    /// What the budget calls one read: a lookup is a read, as the budget was named before pages and keystrokes.
    static let budgetNames: [Question: String] = [.get: "read", .page: "page", .search: "keystroke"]

    /// The level the budget judges: as many readers as the machine's cores, or the most measured below that.
    package static func levelAtCores(_ readers: ReadersMetrics?) -> ReadersMetrics.Level? {
        guard let readers else { return nil }
        return readers.levels.filter { $0.readers <= readers.cores }.max { $0.readers < $1.readers }
    }

    package var capability: StoreCapability { .concurrentReads }

    // MARK: - Its questions and writes

    /// Lookups per reader thread in a pass of its keys (`get-readers`).
    package static func count(scale: Int) -> Int { max(1, min(scale, 1_000)) }

    /// The shortest window reads are measured over, alone and beside the writer: the readers alone read at least
    /// this long, and the writer beside them goes on committing (the same durable inserts, untimed) until it has
    /// run this long.
    package static let floorSeconds = 0.25
    /// The ids each of the writer's runs may use above the last one's: its M timed inserts, then its padding (which
    /// stops there, whatever the time).
    package static let idStride: Int64 = 1 << 20

    /// The ids of the writer's timed inserts in run `run` (0 for the first): what the store holds after the cell,
    /// above N.
    package static func writerIDs(scale: Int, run: Int) -> ClosedRange<Int64> {
        let base = Int64(scale) + Int64(run) * idStride
        return base + 1...base + Int64(commits(scale: scale))
    }

    /// Keystrokes per reader thread in a pass (`search-readers`): as many as a budget's p99 rests on
    /// (`TimeBox.budgetSamples`).
    package static let keystrokes = TimeBox.budgetSamples

    /// The writer's durable commits in each phase: 1,000 from 10k items up, so that its p99 rests on 1,000.
    package static func commits(scale: Int) -> Int { max(1, min(scale / 10, 1_000)) }

    /// Which questions a thread asks: its own at every level and phase (alone, beside the writer), so that no
    /// phase's first pass asks what an earlier phase asked and warmed.
    package struct Asking: Sendable, Equatable {
        package var thread: Int
        /// The level's position in `--readers` (0 for the first), and whether the phase is the one beside the writer.
        package var level = 0
        package var besideWriter = false

        package init(thread: Int, level: Int = 0, besideWriter: Bool = false) {
            self.thread = thread
            self.level = level
            self.besideWriter = besideWriter
        }

        /// The seeded sequence's index: distinct for every thread, level and phase (up to 4,096 threads).
        var index: UInt64 { UInt64(thread) + 4_096 * (2 * UInt64(level) + (besideWriter ? 1 : 0)) }
    }

    /// A thread's keys in a phase: a seeded stream of its own, uniform over the N items.
    package static func keys(scale: Int, seed: UInt64, asking: Asking) -> [Int64] {
        var rng = SplitMix64(seed: seed, stream: .readerKeys, index: asking.index)
        return (0..<count(scale: scale)).map { _ in 1 + Int64(rng.below(UInt64(max(scale, 1)))) }
    }

    /// A thread's questions in a pass of a phase: its keys, its pages (a sequence of `page`'s own, less those of no
    /// priority), or its keystrokes (sessions of `search`'s, typed from a sequence of its own).
    package func questions(scale: Int, seed: UInt64, asking: Asking) -> [ReaderQuestion] {
        switch question {
        case .get:
            return Self.keys(scale: scale, seed: seed, asking: asking).map(ReaderQuestion.get)
        case .page:
            return PageWorkload.queries(seed: seed, index: 1 + asking.index).filter { $0.priority != nil }
                .map(ReaderQuestion.page)
        case .search:
            return SearchWorkload.keystrokes(seed: seed, scale: scale, index: 1 + asking.index)
                .prefix(Self.keystrokes).map(ReaderQuestion.search)
        }
    }

    /// The writer's item `id`: the generator's for lookups; for pages and keystrokes, with no priority and a title no
    /// typed text matches (the id in binary, `~` for 0 and `_` for 1, after a `~`), so that no reader's answer
    /// depends on how far the writer got.
    package func writerItem(id: Int64, items: ItemGenerator) -> Item {
        var item = items.item(id: id)
        guard question != .get else { return item }
        item.priority = nil
        item.title = "~" + String(id, radix: 2).map { $0 == "0" ? "~" : "_" }.joined()
        return item
    }

    // MARK: - The timed phase

    package func run(on store: any ItemStore, context: WorkloadContext) throws -> WorkloadOutcome {
        guard let store = store as? any ConcurrentReadStore else {
            throw BenchError(
                "workload \(name) needs a store with readers on other threads; \(type(of: store)) has none")
        }
        let writer = ReadersWriter(workload: self, store: store, context: context)
        var levels: [ReadersMetrics.Level] = []
        var digest = Digest()
        for (index, readers) in context.parameters.readers.enumerated() {
            levels.append(try level(index, readers: readers, writer: writer, context: context, digest: &digest))
        }
        let writerAlone = levels.first?.writerAlone ?? WriterFigures(commits: 0, seconds: 1, latencies: [])
        return WorkloadOutcome(
            operations: 2 * writer.commits * levels.count, digest: digest, alsoDigestsStore: true,
            figures: .readers(
                ReadersMetrics(
                    cores: ProcessInfo.processInfo.activeProcessorCount,
                    readsPerThread: questions(scale: context.scale, seed: context.seed, asking: Asking(thread: 0))
                        .count,
                    writerAlone: writerAlone,
                    levels: levels)))
    }

    /// One level of `readers` threads (the `index`th): the writer alone, the readers alone for as long, and the
    /// readers beside the writer; the first passes' answers added to `digest`.
    private func level(
        _ index: Int, readers: Int, writer: ReadersWriter, context: WorkloadContext, digest: inout Digest
    ) throws -> ReadersMetrics.Level {
        func questions(besideWriter: Bool) -> [[ReaderQuestion]] {
            (0..<readers).map { thread in
                self.questions(
                    scale: context.scale, seed: context.seed,
                    asking: Asking(thread: thread, level: index, besideWriter: besideWriter))
            }
        }
        let handles = try (0..<readers).map { _ in try writer.store.makeConcurrentReader() }
        defer { for handle in handles { try? handle.close() } }
        // The readers alone read for as long as the writer took alone (at least `floorSeconds`), every one of them
        // throughout: the same kind of window as beside the writer, so that the two rates compare.
        func readAlone(_ writerAlone: WriterFigures) throws -> (reads: ClosedLoopReads, window: Range<UInt64>) {
            let seconds = max(Double(writer.commits) / max(writerAlone.commitsPerSecond, 1e-9), Self.floorSeconds)
            let (alone, _, window) = try ClosedLoopReads.run(
                readers: handles, questions: questions(besideWriter: false)
            ) {
                usleep(UInt32(seconds * 1e6))
            }
            return (alone, window)
        }
        func readBeside() throws -> (reads: ClosedLoopReads, result: WriterFigures, window: Range<UInt64>) {
            let beside = try ClosedLoopReads.run(readers: handles, questions: questions(besideWriter: true)) {
                try writer.write(floor: Self.floorSeconds)
            }
            try writer.removePadding()
            return beside
        }
        // The writer alone at every level: before its readers at one level and after them at the next, so that what
        // the machine did over the cell falls on both sides of the comparison.
        let writerAlone: WriterFigures
        let alone: (reads: ClosedLoopReads, window: Range<UInt64>)
        let beside: (reads: ClosedLoopReads, result: WriterFigures, window: Range<UInt64>)
        if index % 2 == 0 {
            writerAlone = try writer.write(floor: nil)
            alone = try readAlone(writerAlone)
            beside = try readBeside()
        } else {
            beside = try readBeside()
            writerAlone = try writer.write(floor: nil)
            alone = try readAlone(writerAlone)
        }
        // Each later pass was checked against its thread's first as it ran; the first passes' answers, alone and
        // beside the writer, are the digest's (every store must give the generator's).
        for thread in 0..<readers {
            for answer in alone.reads.threads[thread].answers + beside.reads.threads[thread].answers {
                digest.add(answer)
            }
        }
        var level = ReadersMetrics.Level(
            readers: readers, alone: alone.reads.figures(in: alone.window),
            besideWriter: beside.reads.figures(in: beside.window), writer: beside.result)
        level.writerAlone = writerAlone
        return level
    }
}

/// `get-readers`' writer: its runs of durable inserts, run r writing ids above N + r × `idStride`, its M timed ones
/// first, then any padding.
private final class ReadersWriter {
    let workload: ReadersWorkload
    let store: any ConcurrentReadStore
    let context: WorkloadContext
    let commits: Int
    private var run: Int64 = 0
    private var padded: Range<Int64> = 0..<0

    init(workload: ReadersWorkload, store: any ConcurrentReadStore, context: WorkloadContext) {
        (self.workload, self.store, self.context) = (workload, store, context)
        commits = ReadersWorkload.commits(scale: context.scale)
    }

    /// The writer's M durable inserts, each timed; given a `floor`, then more of the same (durable inserts of items
    /// no reader asks for, untimed) until it has run `floor` seconds, so that a fast writer's window still holds a
    /// quarter second of reads.
    ///
    /// The padding is deleted once the readers are done (`removePadding`), and every run starts at its own base, so
    /// that the store's items after the cell do not depend on how much padding any window took, and ids only ascend.
    func write(floor: Double?) throws -> WriterFigures {
        var latencies: [UInt64] = []
        latencies.reserveCapacity(commits)
        let base = Int64(context.scale) + run * ReadersWorkload.idStride
        run += 1
        var next = base + 1
        let start = monotonicNanoseconds()
        for _ in 0..<commits {
            let item = workload.writerItem(id: next, items: context.items)
            try context.stopwatch.measureOperation {
                let begun = monotonicNanoseconds()
                try store.insertDurably(item)
                latencies.append(monotonicNanoseconds() - begun)
            }
            context.progress.advance(by: 1)
            next += 1
        }
        var figures = WriterFigures(commits: commits, seconds: secondsSince(start), latencies: latencies)
        if let floor {
            let first = next
            while secondsSince(start) < floor, next <= base + ReadersWorkload.idStride {
                try store.insertDurably(workload.writerItem(id: next, items: context.items))
                next += 1
            }
            padded = first..<next
            figures.padding = padded.count
        }
        return figures
    }

    /// Deletes the last window's padding, in one commit, untimed: the store holds the timed writes only.
    func removePadding() throws {
        if !padded.isEmpty { try store.delete(ids: Array(padded)) }
        padded = 0..<0
    }
}

// MARK: - Its figures

/// What `get-readers` measured besides its timed commits: per level of readers, the reads alone and beside the
/// writer, and the writer beside them.
package struct ReadersMetrics: Codable, Equatable, Sendable {
    /// The machine's cores: a level above them is oversubscribed.
    package var cores: Int
    /// Each thread's questions in a pass (the first thread's, where their number varies by thread).
    package var readsPerThread: Int
    /// The writer alone: at the first level (each level has its own, `Level.writerAlone`).
    package var writerAlone: WriterFigures
    package var levels: [Level]

    package struct Level: Codable, Equatable, Sendable {
        package var readers: Int
        package var alone: ReadFigures
        /// The reads that started while the writer ran.
        package var besideWriter: ReadFigures
        /// The writer beside the readers.
        package var writer: WriterFigures
        /// The writer alone at this level (before its readers at the first level, after them at the next, and so
        /// on); nil in results recorded before 2026-12-02, which measured it once (`ReadersMetrics.writerAlone`).
        package var writerAlone: WriterFigures?

        package init(readers: Int, alone: ReadFigures, besideWriter: ReadFigures, writer: WriterFigures) {
            self.readers = readers
            self.alone = alone
            self.besideWriter = besideWriter
            self.writer = writer
        }
    }

    package init(cores: Int, readsPerThread: Int, writerAlone: WriterFigures, levels: [Level]) {
        self.cores = cores
        self.readsPerThread = readsPerThread
        self.writerAlone = writerAlone
        self.levels = levels
    }
}

/// A writer's durable commits in one phase.
package struct WriterFigures: Codable, Equatable, Sendable {
    package var commits: Int
    package var commitsPerSecond: Double
    package var latency: LatencySummary?
    /// Beside readers, the durable inserts (of items no reader asks for, deleted afterwards) that kept it committing
    /// until its window reached `ReadersWorkload.floorSeconds`; not in `commits`, nor timed.
    package var padding: Int?

    package init(commits: Int, seconds: Double, latencies: [UInt64]) {
        self.commits = commits
        commitsPerSecond = Double(commits) / max(seconds, 1e-9)
        latency = LatencySummary(nanoseconds: latencies)
    }
}
