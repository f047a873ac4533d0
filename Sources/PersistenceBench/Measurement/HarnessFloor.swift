/// The harness's own cost in a cell: the same loop of steps run again, after the timed phase, against a store that
/// does nothing (`NullItemStore`), on the same number of steps.
///
/// Its timed seconds are what the workload's loop, its clock reads and the call through the store protocol cost without
/// any store work: reported beside the cell's time (`CellMetrics.harnessSeconds`), so that the harness's share is
/// measured, not guessed. The loop is timed as the cell's was: where the cell timed most of its steps alone (a store
/// slower than 2 µs a question), so is the floor's, every step paying its two clock reads; where it timed them in
/// blocks, the floor's are too.
enum HarnessFloor {
    /// Runs of the loop against `NullItemStore`, of which the median is the floor, as every figure of a cell is
    /// a median.
    static let runs = 3

    /// The timed seconds of `workload`'s loop of `steps` steps against `NullItemStore`, timed alone where the cell
    /// timed more than half its `timedAlone` steps alone, the median of `runs`; nil for a workload that is not such
    /// a loop over items or a shape's records.
    static func seconds(of workload: any Workload, steps: Int?, timedAlone: Int?, context: WorkloadContext) throws
        -> Double?
    {
        guard let steps, workload.supports(NullItemStore.self) else { return nil }
        return median(
            try (1...runs).map { _ in
                let stopwatch = Stopwatch()
                var floor = WorkloadContext(
                    scale: context.scale, seed: context.seed, batchSize: context.batchSize, stopwatch: stopwatch,
                    progress: ProgressReporter(), readRate: context.readRate,
                    timeBox: TimeBox(seconds: nil, stepLimit: steps))
                floor.checksAnswers = false
                floor.loopTiming = timedAlone.map { $0 * 2 > steps ? .alone : .blocks } ?? .adaptive
                _ = try workload.run(on: NullItemStore(), context: floor)
                return stopwatch.elapsedSeconds
            })
    }
}

/// Stores nothing, answers every question with nothing: what is left of a loop's time against it is the harness.
///
/// Its records of any shape are `NullRecordTable`'s, so that a shaped cell has its floor too.
final class NullItemStore: ItemStore, RecordStore {
    private let table = NullRecordTable()
    func records(of shape: RecordShape) throws -> any RecordTable { table }
    func close() throws {}
    func insert(_ batch: [Item]) throws {}
    func insertDurably(_ item: Item) throws {}
    func item(id: Int64) throws -> Item? { nil }
    func items(ids: [Int64]) throws -> [Item?] { [] }
    func forEachItem(_ body: (Item) throws -> Void) throws {}
    func count(where filter: ItemFilter) throws -> Int { 0 }
    func count(pricedIn range: PriceRange) throws -> Int { 0 }
    func page(_ query: ItemPageQuery) throws -> [Item] { [] }
    func items(startingAt id: Int64, limit: Int) throws -> [Item] { [] }
    func update(_ updates: [ItemUpdate]) throws {}
    func delete(ids: [Int64]) throws {}
}

/// A shape's records in `NullItemStore`: none.
final class NullRecordTable: RecordTable {
    func insert(_ batch: [Record]) throws {}
    func insertDurably(_ record: Record) throws {}
    func record(id: Int64) throws -> Record? { nil }
    func forEachRecord(_ body: (Record) throws -> Void) throws {}
    func update(_ changes: [RecordUpdate]) throws {}
    func page(_ query: RecordPageQuery) throws -> [Record] { [] }
}
