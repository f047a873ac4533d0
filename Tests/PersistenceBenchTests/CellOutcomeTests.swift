import Foundation
import MemoryStore
import Testing

@testable import PersistenceBench

/// The supervisor's budget decisions and a cell's result from what its child left, in-process: every ending a
/// child can have, without starting one.
@Suite struct CellOutcomeTests {
    static let cell = PlannedCell(
        store: MemoryItemStore.kind, workload: InsertWorkload(), scale: Scale(records: 1_000), repetition: 1)

    static func outcome(
        _ ending: ChildProcess.Ending, reply: ChildReply? = nil, stopped: ChildSupervisor.StopReason? = nil,
        progress: Int? = nil
    ) -> ChildSupervisor.Outcome {
        ChildSupervisor.Outcome(
            ending: ending, usage: rusage(), wallSeconds: 1.5, progress: progress, stopped: stopped, reply: reply)
    }

    static func result(_ outcome: ChildSupervisor.Outcome, killedAtLimit: Int64? = nil) -> CellResult {
        CellLauncher.result(of: outcome, crashMessage: "Fatal error: boom", killedAtLimit: killedAtLimit, cell: cell)
    }

    @Test func theBudgetsStopAChildOverItsTimeOrItsMemory() {
        let look = ChildSupervisor.Look(pid: 1, elapsedSeconds: 11, progress: nil)
        let within = CellLauncher.decide(look, timeBudget: 20, fixture: false, memoryBudget: 100, resident: 50)
        guard case .keepWatching = within else { Issue.record("stopped within its budgets: \(within)"); return }
        let late = CellLauncher.decide(look, timeBudget: 10, fixture: true, memoryBudget: 100, resident: 50)
        guard case .stop(let reason) = late else { Issue.record("not stopped over its time"); return }
        #expect(reason == .timeBudget(seconds: 10, fixture: true))
        #expect(reason.description == "over the fixture time budget of 10 s")
        let big = CellLauncher.decide(look, timeBudget: 20, fixture: false, memoryBudget: 100, resident: 150)
        guard case .stop(.memoryBudget(let limit, let resident)) = big else {
            Issue.record("not stopped over its memory")
            return
        }
        #expect(limit == 100 && resident == 150)
    }

    @Test func aChildsEndingDecidesItsCellsStatus() {
        let metrics = CellMetrics(
            phase: PhaseFigures(timedSeconds: 0.1, operations: 10), resources: ResourceFigures(bytesOnDisk: 0),
            verification: CellVerification(digest: Digest()))
        let ok = Self.result(Self.outcome(.exited(code: 0), reply: .cell(metrics)))
        #expect(ok.status == .ok && ok.metrics == metrics && ok.process?.wallSeconds == 1.5)

        let failed = Self.result(Self.outcome(.exited(code: 1), reply: .failed("no space left")))
        #expect(failed.status == .error && failed.reason == "no space left")

        let stopped = Self.result(
            Self.outcome(.signaled(signal: SIGKILL), stopped: .timeBudget(seconds: 600, fixture: false), progress: 300))
        #expect(stopped.status == .dnf)
        #expect(stopped.reason?.hasPrefix("over the time budget of") == true)
        #expect(stopped.reason?.hasSuffix("after 300 records") == true)

        let crashed = Self.result(Self.outcome(.signaled(signal: SIGSEGV)))
        #expect(crashed.status == .dnf && crashed.reason?.contains("Fatal error: boom") == true)
        #expect(crashed.interrupted == nil)

        let interrupted = Self.result(Self.outcome(.signaled(signal: SIGINT)))
        #expect(interrupted.status == .dnf && interrupted.interrupted == true)

        let silent = Self.result(Self.outcome(.exited(code: 0)))
        #expect(silent.status == .dnf && silent.reason?.hasPrefix("exited with status 0 without a report") == true)

        let capped = Self.result(Self.outcome(.signaled(signal: SIGKILL)), killedAtLimit: 24 << 20)
        #expect(capped.status == .dnf && capped.reason?.hasPrefix(CellResult.killedAtMemoryLimit) == true)
    }
}
