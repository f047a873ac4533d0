import Foundation
import PersistenceBench
import Testing

/// `pinned-reader`: a reader holds one snapshot while the store imports; the store's files are watched.
@Suite struct PinnedReaderTests {
    /// Every store whose reader can pin a snapshot: the reader answers from its snapshot after the import, the sizes
    /// are recorded, and what the snapshot held back is let go by the settle (the SQLite stores' WAL truncated).
    @Test(arguments: storeNames(running: PinnedReaderWorkload()))
    func theSnapshotHoldsAndItsFilesAreRecorded(store name: String) throws {
        let directory = try TemporaryDirectory()
        let kind = try storeKind(name)
        let scale = 2_000
        let metrics = try measureCell(PinnedReaderWorkload(), on: kind, in: directory.url, scale: scale, seed: 5)
        let figures = try #require(metrics.figures?.pinnedReader)
        #expect(figures.imported == scale && metrics.phase.operations == scale)
        #expect(figures.totals.count == 2, "one sample per commit of 1,000")
        let start = PinnedReaderMetrics.total(figures.start)
        #expect(figures.largestTotal > start && PinnedReaderMetrics.total(figures.settled) <= figures.largestTotal)
        for (file, size) in figures.start { #expect(figures.largest[file] ?? 0 >= size, "\(file)") }
        if name == "sqlite" || name == "grdb" {
            // The snapshot kept the log from starting over: it grew with the whole import, and the settle emptied it.
            #expect(figures.largest["store.sqlite-wal"] ?? 0 > 0)
            #expect(figures.settled["store.sqlite-wal"] ?? 0 == 0)
        }
        // The reader's answers from before the import, then the store's items after it.
        let generator = ItemGenerator(seed: 5)
        var rng = SplitMix64(seed: 5, stream: .pinnedReads, index: 0)
        var expected = Digest()
        for _ in 0..<100 {
            let id = 1 + Int64(rng.below(UInt64(2 * scale)))
            expected.add(answer: id <= scale ? generator.item(id: id) : nil)
        }
        expected.add(Digest((1...Int64(2 * scale)).map(generator.item(id:))))
        #expect(metrics.digest == expected)
    }

    /// What the pin costs, and that it is a pin: a SQLite reader's snapshot keeps every checkpoint from copying the
    /// log back and starting it over, so the log holds every page of the whole import.
    ///
    /// Unpinned, SQLite's automatic checkpoint starts it over every 1,000 pages (4 MiB); the import here writes more
    /// than twice that, so a snapshot released early (or one that only copied its answers) leaves the log far smaller
    /// than the import.
    @Test(
        arguments: storeNames(running: PinnedReaderWorkload()) {
            $0.engine().hasPrefix("SQLite") || $0.engine().hasPrefix("GRDB")
        })
    func aPinnedSnapshotKeepsTheWholeImportInTheLog(store name: String) throws {
        let directory = try TemporaryDirectory()
        let scale = 50_000
        let metrics = try measureCell(
            PinnedReaderWorkload(), on: try storeKind(name), in: directory.url, scale: scale, seed: 5)
        let figures = try #require(metrics.figures?.pinnedReader)
        let database = "store.sqlite"
        let grown = (figures.settled[database] ?? 0) - (figures.start[database] ?? 0)
        let autoCheckpoint: Int64 = 1_000 * 4_096
        #expect(grown > 2 * autoCheckpoint, "the import must outgrow an unpinned log: \(grown) bytes")
        #expect(figures.largest["\(database)-wal"] ?? 0 >= grown, "\(figures.largest)")
    }

    /// `grdb+queue` has one connection: its cells are n/a, with the reason, rather than failing.
    @Test func aQueueHasNoSnapshotToPin() throws {
        let queue = try storeKind("grdb+queue")
        let workload = PinnedReaderWorkload()
        #expect(workload.supports(queue.type) && !workload.applies(to: queue))
        #expect(queue.cannotRun[workload.name]?.contains("no snapshot to pin") == true)
        #expect(workload.applies(to: try storeKind("grdb")))
    }
}
