import Foundation
import PersistenceBench
import Testing

/// `two-processes`: a second process of the tool on the store the cell's process has open, and the lock that lets
/// a store refuse it.
@Suite struct TwoProcessesTests {
    /// Every default store and `grdb+queue`: a store that counts its lock waits lets the second process in, and
    /// every commit of both processes is there after a reopen; any other refuses the second open with its lock, and
    /// the app's commits are all there.
    ///
    /// The digest (the app's lookups and commits) is the generator's either way.
    @Test(arguments: storeNames(running: TwoProcessesWorkload(), adding: ["grdb+queue"]))
    func theSecondProcessLosesNothingOrIsRefused(store name: String) throws {
        let directory = try TemporaryDirectory()
        let kind = try storeKind(name)
        // 200 commits a process and phase: long enough that the two processes' commits overlap on any host.
        let scale = 2_000
        let metrics = try measureCell(TwoProcessesWorkload(), on: kind, in: directory.url, scale: scale, seed: 7)
        let figures = try #require(metrics.figures?.twoProcesses)
        let commits = TwoProcessesWorkload.commits(scale: scale)
        #expect(figures.commitsPerProcess == commits)
        #expect(figures.appAlone.commits == commits && figures.app.commits == commits)
        #expect(figures.app.lost == 0 && figures.app.failedIDs.isEmpty)
        #expect(metrics.phase.operations == commits)
        let second = figures.secondProcess
        if kind.type is any LockWaitCountingStore.Type {
            #expect(second.refusal == nil)
            #expect(second.commits == commits && second.lost == 0 && second.failedIDs.isEmpty)
            #expect(second.lockWaits != nil && figures.app.lockWaits != nil && figures.lockWaitPolicy != nil)
            // The two processes committed at the same time: an extension that ran after the app did not test it.
            let interleaved = try #require(figures.app.interleaved)
            #expect(interleaved > 0 && interleaved <= commits, "\(interleaved) of \(commits)")
            #expect(second.span != nil && figures.app.span != nil)
        } else {
            #expect(second.refusedByLock == true && second.commits == 0 && figures.app.interleaved == nil)
            #expect(second.refusal?.contains("open in another process") == true)
        }
        // The answers: the app's lookups, then its commits as the reopened store holds them.
        let generator = ItemGenerator(seed: 7)
        var lookups = SplitMix64(seed: 7, stream: .processLookups, index: 0)
        var expected = Digest()
        for _ in 0..<(2 * commits) { expected.add(answer: generator.item(id: 1 + Int64(lookups.below(UInt64(scale))))) }
        for id in Int64(scale + 1)...Int64(scale + 2 * commits) { expected.add(answer: generator.item(id: id)) }
        #expect(metrics.digest == expected)
    }

    /// A store that one process at a time may write refuses a second open, in this process too, until the first
    /// closes.
    @Test(
        arguments: storeNames(running: TwoProcessesWorkload(), adding: ["packed+nosync", "plist"]) {
            !($0.type is any LockWaitCountingStore.Type)
        })
    func aSecondOpenIsRefusedUntilTheFirstCloses(store name: String) throws {
        let directory = try TemporaryDirectory()
        let kind = try storeKind(name)
        let first = try kind.open(directory.url)
        #expect(throws: StoreInUse.self) { try kind.open(directory.url) }
        try first.close()
        try kind.open(directory.url).close()
    }
}
