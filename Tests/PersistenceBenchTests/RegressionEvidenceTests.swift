import Foundation
import PersistenceBench
import Reports
import Testing

/// The regression checks replayed on the committed runs they were measured with
/// (`results/2026-11-26-regression-gate/`, whose README says how each was made): builds with a regression injected
/// on purpose (`patches/`) must fail, naming it; the unchanged tree, counted again and with another CPU's string
/// routines, and timed against itself, must pass.
@Suite struct RegressionEvidenceTests {
    static let evidence = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("results/2026-11-26-regression-gate")

    /// The counter check from a second host (`results/2026-11-26-regression-gate-second-host/`, whose README says
    /// how each run was made): the baseline counted on the first host, the rest on the second.
    static let secondHost = evidence.deletingLastPathComponent().appendingPathComponent(
        "2026-11-26-regression-gate-second-host")

    static func load(_ run: String, in directory: URL = evidence) throws -> RunResults {
        try RunResults.load(from: directory.appendingPathComponent(run).appendingPathComponent("results.json"))
    }

    static func counters(_ run: String, in directory: URL = evidence) throws -> CounterComparison {
        try CounterComparison(
            baseline: try load("counter-baseline", in: directory), current: try load(run, in: directory))
    }

    @Test(arguments: ["counted-again", "counted-other-string-routines"])
    func anUnchangedTreeCountsTheSame(run: String) throws {
        let comparison = try Self.counters(run)
        #expect(comparison.regressions.isEmpty, "\(run): \(comparison.regressions)")
        #expect(comparison.cells.count == 108)
    }

    /// Each injected regression, and a line the counter check must print for it.
    @Test(arguments: [
        ("sqlite-lookup-10-percent-slower", "sqlite get 2k: instructions/op"),
        ("harness-10-percent-slower", "every store: instructions"),
        ("lmdb-extra-fdatasync-per-commit", "lmdb insert-each 2k: flushes/op"),
        ("packed-extra-allocation-per-lookup", "packed get 2k: allocations/op"),
    ])
    func anInjectedRegressionIsCounted(patch: String, line: String) throws {
        #expect(FileManager.default.fileExists(atPath: Self.evidence.path + "/patches/\(patch).patch"))
        let regressions = try Self.counters("counted-" + patch).regressions
        #expect(regressions.contains { $0.hasPrefix(line) }, "\(patch): \(regressions)")
    }

    /// Counted on another host than the baseline's (another boot, another CPU's timings): the baseline's own
    /// commit and a later unchanged tree pass; each patch fails, naming what it did.
    @Test func theCountersAreJudgedTheSameOnASecondHost() throws {
        let hosts = try ["counter-baseline", "counted-d8920f7"].map {
            try Self.load($0, in: Self.secondHost).environment.bootID
        }
        #expect(hosts[0] != nil && hosts[1] != nil && hosts[0] != hosts[1], "\(hosts)")
        for run in ["counted-d8920f7", "counted-unchanged"] {
            let comparison = try Self.counters(run, in: Self.secondHost)
            #expect(comparison.regressions.isEmpty, "\(run): \(comparison.regressions)")
            #expect(comparison.cells.count == 108)
        }
        for (patch, line) in [
            ("sqlite-lookup-10-percent-slower", "sqlite+tuned get 2k: instructions/op"),
            ("harness-10-percent-slower", "every store: instructions"),
            ("lmdb-extra-fdatasync-per-commit", "lmdb insert-each 2k: flushes/op"),
            ("packed-extra-allocation-per-lookup", "packed get 2k: allocations/op"),
        ] {
            let regressions = try Self.counters("counted-" + patch, in: Self.secondHost).regressions
            #expect(regressions.contains { $0.hasPrefix(line) }, "\(patch): \(regressions)")
        }
    }

    /// A counted cell that kept a timeline counted its windows, which go by the clock: beside a build, `lmdb
    /// insert-each` counted ×1.069 and failed.
    ///
    /// Without the timeline, the same beside a build passes.
    @Test func aBusyHostCountsTheSameWithoutTheTimeline() throws {
        let withTimeline = try Self.counters("counted-unchanged-beside-a-build", in: Self.secondHost).regressions
        #expect(withTimeline.count == 1 && withTimeline[0].hasPrefix("lmdb insert-each 2k: instructions/op"))
        let without = try CounterComparison(
            baseline: try Self.load("counter-baseline-without-timeline", in: Self.secondHost),
            current: try Self.load("counted-without-timeline-beside-a-build", in: Self.secondHost))
        #expect(without.regressions.isEmpty, "\(without.regressions)")
        #expect(without.cells.count == 108)
    }

    /// The time check's runs: an unchanged tree against itself, and the two slowdowns against the unchanged tree.
    static func time(_ run: String) throws -> TimeComparison {
        try TimeComparison(base: try load("\(run)/base"), current: try load("\(run)/current"))
    }

    static let timeRuns: [String] =
        ((try? FileManager.default.contentsOfDirectory(atPath: evidence.path)) ?? [])
        .filter { $0.hasPrefix("timed-unchanged-") }.sorted()

    @Test func theTimeEvidenceIsThere() {
        #expect(Self.timeRuns.count == 10, "\(Self.timeRuns)")
    }

    @Test(arguments: timeRuns) func anUnchangedTreeIsNotSlower(run: String) throws {
        let comparison = try Self.time(run)
        #expect(comparison.regressions.isEmpty, "\(run): \(comparison.regressions)")
        #expect(comparison.cells.count == 63)
    }

    /// `sqlite` 10 % slower in every item call, and every store's timed operations 10 % slower, are caught; `sqlite`'s
    /// lookup alone 10 % slower is one cell, within what one cell's noise does here: the counter check catches it.
    @Test func aStoreOrTheHarnessTenPercentSlowerIsTimed() throws {
        let store = try Self.time("timed-sqlite-10-percent-slower")
        #expect(store.stores.filter { $0.verdict == .worse }.map(\.name) == ["sqlite"], "\(store.regressions)")
        let harness = try Self.time("timed-harness-10-percent-slower")
        #expect(harness.overall?.verdict == .worse, "\(harness.regressions)")
        let lookup = try Self.time("timed-sqlite-lookup-10-percent-slower")
        #expect(lookup.regressions.isEmpty, "\(lookup.regressions)")
    }

    /// The check as it runs now, on the same patch applied to a later tree: the first round finds `sqlite` slower,
    /// the confirmation round times `sqlite` alone again, finds it slower again, and the check fails naming it.
    @Test func aStoreTenPercentSlowerIsConfirmedWhenTimedAgain() throws {
        let run = "timed-sqlite-10-percent-slower-confirmed"
        let first = try Self.time(run)
        #expect(TimeCheck.storesToConfirm(after: first) == ["sqlite"])
        let check = TimeCheck(first: first, confirmation: try Self.time("\(run)/confirmation"))
        #expect(check.confirmation?.stores.map(\.name) == ["sqlite"])
        #expect(check.confirmation?.cells.allSatisfy { $0.base.count == 10 } == true)
        #expect(
            check.regressions.count == 1 && check.regressions[0].hasPrefix("sqlite: time ×"), "\(check.regressions)")
        #expect(check.notConfirmed.isEmpty)
    }
}
