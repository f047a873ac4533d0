import Foundation
import PersistenceBench
import Reports
import Testing

/// The regression check replayed on real runs of `make check`'s matrix (every store, the default workloads, 10k,
/// 3 repetitions), committed in `results/2026-11-23-check-evidence/` with the baseline they were judged against.
/// Runs of an unchanged tree, on this machine and on a sibling host of the same class, must pass; runs of a tree
/// with one store made slower on purpose must fail, naming that store.
@Suite struct CheckEvidenceTests {
    static let evidence = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("results/2026-11-23-check-evidence")

    static func load(_ run: String) throws -> RunResults {
        try RunResults.load(from: evidence.appendingPathComponent(run).appendingPathComponent("results.json"))
    }

    static func compare(_ run: String) throws -> RunComparison {
        try RunComparison(baseline: try load("baseline"), current: try load(run))
    }

    /// Runs of an unchanged tree: `unchanged-NN` on the baseline's host, `sibling-*` on other hosts of its class.
    static let unchangedRuns: [String] =
        ((try? FileManager.default.contentsOfDirectory(atPath: evidence.path)) ?? [])
        .filter { $0.hasPrefix("unchanged-") || $0.hasPrefix("sibling-") }.sorted()

    @Test func theEvidenceIsThere() {
        #expect(Self.unchangedRuns.count == 11, "\(Self.unchangedRuns)")
        #expect(Self.hostPairs.count == 22)
    }

    @Test(arguments: unchangedRuns) func anUnchangedTreePasses(run: String) throws {
        let comparison = try Self.compare(run)
        #expect(comparison.regressions.isEmpty, "\(run): \(comparison.regressions)")
        #expect(comparison.rule == (run.hasPrefix("sibling-") ? .machineClass : .sameMachine))
        #expect(comparison.cells.count >= 70)
    }

    /// Every pair of runs from two hosts of one class: host A's baseline against every run of B and C, and every
    /// run of C against B's.
    static let hostPairs: [[String]] =
        (["baseline"] + unchangedRuns).map { ["host-a-baseline", $0] }
        + unchangedRuns.filter { $0.hasPrefix("unchanged-") }.map { [$0, "sibling-check-1"] }

    @Test(arguments: hostPairs) func anUnchangedTreePassesOnAnotherHostOfTheClass(pair: [String]) throws {
        let comparison = try RunComparison(baseline: try Self.load(pair[0]), current: try Self.load(pair[1]))
        #expect(comparison.rule == .machineClass)
        #expect(comparison.regressions.isEmpty, "\(pair): \(comparison.regressions)")
    }

    @Test func theSiblingRunClassesItsDurableCommitsAsWaitBound() throws {
        let comparison = try Self.compare("sibling-check-1")
        let io = try #require(comparison.bounds.first { $0.bound == .io })
        let times = comparison.cells.compactMap { cell in
            cell.changes.first { $0.metric == "time/op" }.map { (cell.store, cell.workload, $0) }
        }
        let durable = times.filter { $0.2.bound == .io && $0.2.note == nil }
        #expect(durable.allSatisfy { $0.1 == "insert-each" } && durable.count == io.cells)
        #expect(io.cells == 8)
        // `packed`'s limit workloads time the machine: shown, not judged.
        let limits = times.filter { $0.1.hasPrefix("limit-") }
        #expect(limits.count == 2 && limits.allSatisfy { $0.0 == "packed" && $0.2.band == nil && $0.2.note != nil })
        // Recorded before the fdatasync probe existed: its probe is missing and its ratio taken as ×1.
        #expect(io.currentProbe == nil && io.probeRatio == 1)
    }

    @Test func aStoreWith30PercentSlowerCPUIsCaughtAndNamed() throws {
        let comparison = try Self.compare("regressed-sqlite-cpu")
        let worse = comparison.stores.filter { $0.verdict == .worse }.map(\.store)
        #expect(worse == ["sqlite"], "\(comparison.regressions)")
    }

    @Test func anExtraSyncPerCommitIsCaughtAndNamed() throws {
        // The extra write overwrites a block, so its sync costs less than an append's: `insert-each` took ×1.3, inside
        // the time band; its waits per operation doubled, and they are what is caught.
        let comparison = try Self.compare("regressed-sqlite-sync")
        let regressed = comparison.regressions
        #expect(regressed.count == 1, "\(regressed)")
        #expect(regressed.first?.hasPrefix("sqlite insert-each 10k: waits/op 2.13 → 4.23") == true, "\(regressed)")
    }
}
