import Foundation
import Testing

@testable import PersistenceBench

/// `persistbench crash` and `verify`: the plan's verdicts, the crash states built from a log, and the real tool
/// killing, cutting the power of and failing real writers.
@Suite struct CrashTests {
    /// A store of the `get` fixture at `scale`, open.
    private func fixture(_ name: String, scale: Int, in directory: URL) throws -> any ItemStore {
        let kind = try storeKind(name)
        let context = WorkloadContext(
            scale: scale, seed: 7, batchSize: 1_000, stopwatch: Stopwatch(), progress: ProgressReporter())
        try CellExecution.loadFixture(
            of: try #require(WorkloadCatalog.workload(named: "get")), into: kind, at: directory, context: context)
        return try #require(try kind.open(directory) as? any ItemStore)
    }

    @Test(arguments: crashCheckedStoreNames)
    func theVerdictNamesTheCommittedStateFoundAndCatchesAPartialTransaction(store name: String) throws {
        let temporary = try TemporaryDirectory()
        let store = try fixture(name, scale: 500, in: temporary.url)
        defer { try? store.close() }
        var plan = CrashPlan(scale: 500, seed: 7, run: 3)
        #expect(try plan.verdict(for: store, committed: 0) == CrashVerdict(outcome: .intact, committed: 0, found: 0))
        for _ in 1...10 { try CrashPlan.apply(plan.next(), to: store) }
        let check = CrashPlan(scale: 500, seed: 7, run: 3, transactions: 13)
        #expect(try check.verdict(for: store, committed: 10).outcome == .intact)
        // The transaction in flight may have committed before its number was reported.
        #expect(try check.verdict(for: store, committed: 9) == CrashVerdict(outcome: .intact, committed: 9, found: 10))
        let lost = try check.verdict(for: store, committed: 12)
        #expect(lost.outcome == .lost && lost.lostTransactions == 2)
        // The first item of the next multi-item transaction, committed on its own: a torn transaction.
        var next = plan.next()
        while plan.history.last!.count < 2 { next = plan.next() }
        switch next {
        case .insert(let items): try store.insertCommitted([items[0]])
        case .update(let updates): try store.update([updates[0]])
        case .delete(let ids): try store.delete(ids: [ids[0]])
        case .insertRecords, .updateRecords: Issue.record("an item plan made a record transaction")
        }
        let partly = plan.history.count
        let torn = try CrashPlan(scale: 500, seed: 7, run: 3, transactions: partly)
            .verdict(for: store, committed: partly - 1)
        #expect(torn.outcome == .torn, "\(torn)")
    }

    /// A successor's plan: the first writer's transactions up to the state the store recovered to, then its own,
    /// which write other values than the transactions the crash cut off (so that a store trusting those bytes is
    /// caught), and whose verdicts count from the recovered state.
    @Test func aContinuedPlanKeepsTheRecoveredHistoryAndWritesOtherValues() throws {
        let temporary = try TemporaryDirectory()
        let store = try fixture("sqlite", scale: 500, in: temporary.url)
        defer { try? store.close() }
        var first = CrashPlan(scale: 500, seed: 7, run: 0)
        for _ in 1...5 { try CrashPlan.apply(first.next(), to: store) }
        let cutOff = first.next()
        var successor = CrashPlan(scale: 500, seed: 7, run: 0, transactions: 5)
        successor.continuing(1, retrying: false)
        #expect(successor.history.count == 5)
        let next = successor.next()
        switch (cutOff, next) {
        case (.insert(let a), .insert(let b)): #expect(a[0].id != b[0].id || a[0] != b[0])
        case (.update(let a), .update(let b)): #expect(a != b)
        case (.delete(let a), .delete(let b)): #expect(a != b)
        default: break
        }
        try CrashPlan.apply(next, to: store)
        for _ in 1...3 { try CrashPlan.apply(successor.next(), to: store) }
        #expect(
            try successor.verdict(for: store, committed: 9) == CrashVerdict(outcome: .intact, committed: 9, found: 9))
        // The first writer's cut-off transaction is in no state of the successor's history.
        try CrashPlan.apply(cutOff, to: store)
        #expect(try successor.verdict(for: store, committed: 9).outcome == .torn)
    }

    @Test func aWriteIsPendingUntilItsFileIsFlushedAndSplitIntoPages() throws {
        let data = [UInt8](repeating: 7, count: 6_000)
        let log = WriteLog(operations: [
            .create(file: 1, path: "a"), .write(file: 1, path: "a", offset: 100, data: data), .flush(file: 1),
            .committed(1), .write(file: 1, path: "a", offset: 0, data: [1, 2]), .rename(from: "a", to: "b"),
            .directorySync(path: "."), .committed(2),
        ])
        let states = CrashStates(log: log, newFiles: .ext4)
        #expect(states.pendingPieces(at: 2).map(\.bytes) == [nil, 0..<3_996, 3_996..<6_000])
        #expect(states.pendingPieces(at: 3).isEmpty)
        #expect(states.pendingPieces(at: 6).map(\.operation) == [4, 5])
        #expect(states.pendingPieces(at: 7).map(\.operation) == [4])
        #expect(states.committed(before: 7) == 1 && states.committed(before: 8) == 2)
        let temporary = try TemporaryDirectory()
        let state = try #require(states.states(limit: 100, seed: 1).first { $0.cut == 8 && $0.pending.isEmpty })
        try states.materialize(state, in: temporary.url)
        let renamed = try Data(contentsOf: temporary.url.appendingPathComponent("b"))
        #expect(renamed.count == 6_100 && renamed[100] == 7 && renamed[0] == 0)
        // The two-crash check's families at the cut before the first flush (3 pending pieces): each piece missing
        // once with the others kept; the prefixes in call order.
        let torn = states.states(limit: 100, seed: 1, within: 2...2, family: .allButOne)
        #expect(
            torn.map { $0.pending.map(\.bytes) } == [
                [0..<3_996, 3_996..<6_000], [nil, 3_996..<6_000], [nil, 0..<3_996],
            ])
        let prefixes = states.states(limit: 100, seed: 1, within: 2...2, family: .prefixes)
        #expect(prefixes.map(\.pending.count) == [0, 1, 2, 3])
    }

    /// A retrying successor first makes again the transaction the crash cut off, an insert with as many items
    /// again; the history it checks against has that transaction, not the cut-off one.
    @Test func aRetryingSuccessorMakesTheCutOffInsertAgainWithMore() {
        var first = CrashPlan(scale: 0, seed: 7, run: 0)
        for _ in 1...3 { _ = first.next() }
        guard case .insert(let cutOff) = first.next() else {
            Issue.record("a store that starts empty begins with inserts")
            return
        }
        var successor = CrashPlan(scale: 0, seed: 7, run: 0, transactions: 3)
        successor.continuing(2, retrying: true)
        guard case .insert(let retried) = successor.next() else {
            Issue.record("the retried transaction is not an insert")
            return
        }
        #expect(retried.count == 2 * cutOff.count && Array(retried.prefix(cutOff.count)) == cutOff)
        #expect(successor.history.last?.count == retried.count)
    }

    /// A file created, written and flushed, its directory never flushed: under POSIX's rule its name, and so all
    /// it holds, may be gone after a power cut; under ext4's it is there.
    ///
    /// A directory the log made takes the files made in it along: they last no longer than its own entry, whatever
    /// their flushes.
    @Test func aNewFileLastsOnlyOnceItsDirectoryIsFlushedUnderPOSIXsRule() throws {
        let log = WriteLog(operations: [
            .create(file: 1, path: "store"), .write(file: 1, path: "store", offset: 0, data: [1, 2, 3]),
            .flush(file: 1), .committed(1), .makeDirectory(path: "g1"), .create(file: 2, path: "g1/rows"),
            .flush(file: 2), .directorySync(path: "g1"), .committed(2),
        ])
        func files(_ rule: NewFileRule, cut: Int) throws -> [String] {
            let states = CrashStates(log: log, newFiles: rule)
            let temporary = try TemporaryDirectory()
            let state = try #require(states.states(limit: 100, seed: 1).first { $0.cut == cut && $0.pending.isEmpty })
            try states.materialize(state, in: temporary.url)
            return try FileManager.default.subpathsOfDirectory(atPath: temporary.url.path).sorted()
        }
        // After the first commit: the file flushed (its write durable, its name pending), its directory never.
        #expect(try files(.posix, cut: 4) == [])
        #expect(try files(.ext4, cut: 4) == ["store"])
        #expect(CrashStates(log: log, newFiles: .posix).pendingPieces(at: 4).map(\.operation) == [0])
        // At the end: g1 was flushed, but the directory holding g1's own entry (the store's) never was; ext4
        // commits a directory's creation with its own flush.
        #expect(try files(.posix, cut: 9) == [])
        #expect(try files(.ext4, cut: 9) == ["g1", "g1/rows", "store"])
        let flushed = WriteLog(operations: log.operations + [.directorySync(path: "."), .committed(3)])
        let states = CrashStates(log: flushed, newFiles: .posix)
        let state = try #require(states.states(limit: 100, seed: 1).first { $0.cut == 11 && $0.pending.isEmpty })
        let temporary = try TemporaryDirectory()
        try states.materialize(state, in: temporary.url)
        #expect(
            try FileManager.default.subpathsOfDirectory(atPath: temporary.url.path).sorted() == [
                "g1", "g1/rows", "store",
            ])
        #expect(try Data(contentsOf: temporary.url.appendingPathComponent("store")) == Data([1, 2, 3]))
    }

    @Test(.tags(.endToEnd), .timeLimit(.minutes(10)))
    func theToolKillsCutsThePowerAndFailsWritesAndEveryStoreKeepsItsPromise() throws {
        let temporary = try TemporaryDirectory()
        let run = try runTool([
            "crash", "--stores", "sqlite,grdb,orm,lmdb,packed", "--kills", "3", "--power-loss", "12", "--faults", "2",
            "--corruptions", "25", "--scale", "1k", "--transactions", "8", "--out", temporary.url.path,
        ])
        #expect(run.status == 0, "\(run.output)")
        let results = try JSONDecoder().decode(
            CrashResults.self, from: Data(contentsOf: temporary.url.appendingPathComponent("crash.json")))
        #expect(results.summaries.count == 20)
        for summary in results.summaries where summary.check == .corruption {
            // Damage is found or harmless or not, but never crashes a reader (LMDB's engine may: it does not check
            // its pages).
            #expect(summary.trials == 25 && summary.hangs == 0)
            if summary.store != "lmdb" { #expect(summary.crashes == 0, "\(summary.store)") }
            #expect(summary.corrupt > 0 || summary.store == "lmdb", "\(summary.store) detected nothing")
        }
        for summary in results.summaries where summary.check != .corruption {
            #expect(summary.broken == 0 && summary.trials > 0, "\(summary.store) \(summary.check)")
            #expect(summary.intact == summary.trials, "\(summary.store) \(summary.check)")
            #expect(summary.transactionsVerified > 0, "\(summary.store) \(summary.check)")
        }
        #expect(
            try String(contentsOf: temporary.url.appendingPathComponent("crash.md"), encoding: .utf8)
                .contains("| packed | power-loss |"))
    }

    @Test(.tags(.endToEnd), .timeLimit(.minutes(10)))
    func aStoreThatMayLoseItsLastCommitsLosesWholeTransactionsAndKeepsItsPromise() throws {
        let temporary = try TemporaryDirectory()
        let run = try runTool([
            "crash", "--stores", "sqlite+normal,lmdb+nometasync", "--kills", "0", "--power-loss", "40",
            "--transactions", "8", "--scale", "1k", "--out", temporary.url.path,
        ])
        #expect(run.status == 0, "\(run.output)")
        let results = try JSONDecoder().decode(
            CrashResults.self, from: Data(contentsOf: temporary.url.appendingPathComponent("crash.json")))
        #expect(results.summaries.count == 2)
        for summary in results.summaries {
            #expect(summary.promise == .committedPrefix)
            #expect(summary.torn == 0 && summary.corrupt == 0 && summary.broken == 0, "\(summary.store)")
        }
        // Unsynced commits are lost at a power cut: the states show it, and the promise allows it.
        let normal = try #require(results.summaries.first { $0.store == "sqlite+normal" })
        #expect(normal.lost > 0 && normal.lostTransactions >= normal.lost)
    }

    /// A store writing through a writable map is checked like any other (the recorder reads what each msync
    /// flushes from the map); the JSON documents keep every commit through both; a store that never flushes
    /// survives kills, and what a power cut leaves of it is measured (it loses or damages some), not promised.
    @Test(.tags(.endToEnd), .timeLimit(.minutes(10))) func eachDurabilitySettingIsCheckedAgainstItsOwnPromise() throws {
        let temporary = try TemporaryDirectory()
        let run = try runTool([
            "crash", "--stores", "lmdb+writemap,json,packed+nosync", "--kills", "2", "--power-loss", "20", "--faults",
            "2",
            "--transactions", "6", "--scale", "1k", "--out", temporary.url.path,
        ])
        #expect(run.status == 0, "\(run.output)")
        let results = try JSONDecoder().decode(
            CrashResults.self, from: Data(contentsOf: temporary.url.appendingPathComponent("crash.json")))
        #expect(results.summaries.filter { $0.store == "lmdb+writemap" }.map(\.check) == [.kill, .powerLoss, .fault])
        #expect(results.summaries.filter { $0.store == "json" }.map(\.check) == [.kill, .powerLoss, .fault])
        #expect(results.summaries.allSatisfy { $0.broken == 0 })
        for summary in results.summaries where summary.store != "packed+nosync" || summary.check != .powerLoss {
            #expect(summary.intact == summary.trials, "\(summary.store) \(summary.check)")
        }
        let unflushed = try #require(results.summaries.first { $0.store == "packed+nosync" && $0.check == .powerLoss })
        #expect(unflushed.promise == .survivesKills && unflushed.trials == 20)
        #expect(unflushed.lost + unflushed.torn + unflushed.corrupt > 0, "no flush, yet every crash state was intact")
        let writemap = try #require(results.summaries.first { $0.store == "lmdb+writemap" && $0.check == .powerLoss })
        #expect(writemap.trials == 20 && writemap.newStoreStates == 5)
        #expect(
            try String(contentsOf: temporary.url.appendingPathComponent("crash.md"), encoding: .utf8)
                .contains("New names under POSIX's rule"))
    }

    @Test(.tags(.endToEnd), .timeLimit(.minutes(10)))
    func twoCrashesInARowAreCutByPowerLossAndKillsAndEveryStoreKeepsItsPromise() throws {
        let temporary = try TemporaryDirectory()
        let run = try runTool([
            "crash", "--stores", "sqlite,lmdb,packed,json", "--kills", "0", "--power-loss", "20", "--crashes", "2",
            "--scale", "1k", "--transactions", "8", "--out", temporary.url.path,
        ])
        #expect(run.status == 0, "\(run.output)")
        let results = try JSONDecoder().decode(
            CrashResults.self, from: Data(contentsOf: temporary.url.appendingPathComponent("crash.json")))
        let sequences = results.summaries.filter { $0.check == .twoCrashes }
        #expect(sequences.map(\.store) == ["sqlite", "lmdb", "packed", "json"])
        for summary in sequences {
            #expect(summary.trials == 20 && summary.broken == 0, "\(summary.store): \(summary.examples)")
            #expect(summary.firstStates == 2 && summary.newStoreStates == 10, "\(summary.store)")
            #expect(summary.killCuts == 4 && summary.transactionsVerified > 0, "\(summary.store)")
        }
        #expect(
            try String(contentsOf: temporary.url.appendingPathComponent("crash.md"), encoding: .utf8)
                .contains("## Two crashes in a row"))
    }

    @Test(
        .tags(.endToEnd), .timeLimit(.minutes(10)),
        arguments: [
            (["crash", "--stores", "memory"], "memory promises nothing to check"),
            (["crash", "--kills=-1"], "invalid --kills -1"),
            (["crash", "--kills", "0"], "nothing to check"),
            (["crash", "--scale", "many"], "invalid --scale 'many'"),
            (["crash", "--new-files", "zfs"], "invalid --new-files 'zfs': posix or ext4"),
            (["crash", "--power-loss", "4", "--crashes", "3"], "invalid --crashes 3: 1 or 2"),
            (["crash", "--crashes", "2"], "--crashes 2 needs --power-loss N"),
            (["verify", "--store", "nosuch", "/tmp"], "unknown store 'nosuch'"),
            (["verify", "--store", "packed", "/nonexistent-dir"], "'/nonexistent-dir' is not a store directory"),
        ])
    func badInputIsNamed(arguments: [String], message: String) throws {
        let run = try runTool(arguments)
        #expect(run.status == 2)
        #expect(run.output.contains(message), "\(run.output)")
    }

    @Test func sqliteDamageIsPlacedAtTheFirstPageItsCheckNames() {
        #expect(DamagedStore.sqlite(file: "s", integrityCheck: ["ok"], pageSize: 4096) == nil)
        let damage = DamagedStore.sqlite(
            file: "store.sqlite",
            integrityCheck: ["*** in database main ***", "On tree page 12 cell 3: invalid page number 999"],
            pageSize: 4096)
        #expect(damage?.place == "page 12 (byte 45056)")
        #expect(
            DamagedStore.sqlite(file: "s", integrityCheck: ["Page 5: never used"], pageSize: 1024)?.place
                == "page 5 (byte 4096)")
        #expect(
            DamagedStore.sqlite(file: "s", integrityCheck: ["row 3 missing from index i"], pageSize: 1024)?.place
                == nil)
    }

    @Test(.tags(.endToEnd), .timeLimit(.minutes(10))) func verifyPassesASoundStoreAndNamesTheFileAndPlaceOfDamage()
        throws
    {
        let temporary = try TemporaryDirectory()
        let directory = try temporary.subdirectory("packed")
        try fixture("packed", scale: 200, in: directory).close()
        let sound = try runTool(["verify", "--store", "packed", directory.path])
        #expect(sound.status == 0, "\(sound.output)")
        #expect(sound.output.contains("200 items"))
        // A padding byte of row 5 set.
        let rows = directory.appendingPathComponent("g1/items.rows")
        let handle = try FileHandle(forWritingTo: rows)
        try handle.seek(toOffset: UInt64(2 * 4096 + 5 * 48 + 44))
        try handle.write(contentsOf: [0xFF])
        try handle.close()
        // And the checksum of row 9: one line per problem.
        let checksum = try FileHandle(forWritingTo: rows)
        try checksum.seek(toOffset: UInt64(2 * 4096 + 9 * 48))
        try checksum.write(contentsOf: [0xFF, 0xFF])
        try checksum.close()
        let damaged = try runTool(["verify", "--store", "packed", directory.path])
        #expect(damaged.status == 3)
        let lines = damaged.output.split(separator: "\n").filter { $0.contains("damaged:") }
        #expect(lines.count == 3, "\(damaged.output)")
        #expect(damaged.output.contains("items.rows at byte \(2 * 4096 + 5 * 48) (row 5)"), "\(damaged.output)")
        #expect(damaged.output.contains("items.rows at byte \(2 * 4096 + 9 * 48) (row 9)"), "\(damaged.output)")
        #expect(damaged.output.contains("at the header: per-filter counts"), "\(damaged.output)")
    }

    @Test(.tags(.endToEnd), .timeLimit(.minutes(10))) func verifySaysWhatTheRecoveryDid() throws {
        let temporary = try TemporaryDirectory()
        let directory = try temporary.subdirectory("packed")
        let store = try fixture("packed", scale: 200, in: directory)
        try store.insertCommitted(ItemGenerator(seed: 7).items(201...300))
        try store.close()
        // A page of the last append's rows never reached the disk.
        let rows = directory.appendingPathComponent("g1/items.rows")
        let handle = try FileHandle(forWritingTo: rows)
        try handle.seek(toOffset: UInt64(2 * 4096 + 250 * 48))
        try handle.write(contentsOf: [UInt8](repeating: 0, count: 48))
        try handle.close()
        let run = try runTool(["verify", "--store", "packed", directory.path])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("recovered: commit"), "\(run.output)")
        #expect(run.output.contains("not trusted (row 250"), "\(run.output)")
        #expect(run.output.contains("200 items"), "\(run.output)")
    }
}
