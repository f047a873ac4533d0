import Foundation

/// Supervises one cell's child process: starts it, forwards its progress, stops it when it outgrows its time or
/// memory budget, reaps it with wait4 for its rusage, and reads what it reported.
struct CellSupervisor {
    let executable: String
    /// Where the child's standard output and error go: the line a crash leaves is read from it.
    let outputPath: URL
    /// Where the child writes its `CellReport`.
    let reportPath: URL
    let timeBudgetSeconds: Double
    let memoryBudgetBytes: Int64
    /// Run the child in a memory cgroup of this limit (`MemoryCgroup`); nil: as it is.
    var memoryLimitBytes: Int64? = nil
    /// Under callgrind with the operation counter (`run --count`), its dumps written into the directory this
    /// names; nil: directly.
    var counting: (launcher: CountingLauncher, dumpDirectory: String)? = nil

    /// What became of the child.
    struct Outcome {
        let ending: ChildProcess.Ending
        let usage: rusage
        let wallSeconds: Double
        let recordsDone: Int?
        /// Why the child was stopped, if it outgrew a budget.
        let overBudget: String?
        let report: CellReport?
        let crashMessage: String?
        /// Under a memory limit: the cgroup's peak charge, and whether the kernel killed the child at the limit.
        var cappedPeakBytes: Int64? = nil
        var killedAtLimit: Int64? = nil

        /// The cell's result: its metrics, or why it did not finish (DNF) or failed (error).
        func result(store: String, workload: String, scale: Scale, repetition: Int) -> CellResult {
            var result = CellResult(
                store: store, workload: workload, scale: scale, repetition: repetition, status: .ok)
            result.process = ProcessUsage(
                wallSeconds: wallSeconds, userCPUSeconds: Self.seconds(usage.ru_utime),
                systemCPUSeconds: Self.seconds(usage.ru_stime), peakRSSBytes: Int64(usage.ru_maxrss) * 1024)
            result.process?.cappedPeakBytes = cappedPeakBytes
            if let limit = killedAtLimit {
                result.status = .dnf
                result.reason =
                    "\(CellResult.killedAtMemoryLimit) of \(Quantity.formatBytes(limit)) (page cache included), as "
                    + "jetsam kills an app over its limit" + (recordsDone.map { ", after \($0) records" } ?? "")
            } else if let overBudget {
                result.status = .dnf
                result.reason = overBudget + (recordsDone.map { " after \($0) records" } ?? "")
            } else if case .signaled(let signal) = ending, Self.signalsFromOutside.contains(signal) {
                result.status = .dnf
                result.reason =
                    "stopped from outside the run by signal \(signal) (\(String(cString: strsignal(signal))))"
                result.interrupted = true
            } else if case .signaled(let signal) = ending {
                result.status = .dnf
                result.reason =
                    "crashed with signal \(signal) (\(String(cString: strsignal(signal))))"
                    + (crashMessage.map { ": \($0)" } ?? "")
            } else if let error = report?.error {
                result.status = .error
                result.reason = error
            } else if case .exited(let code) = ending, code != 0 || report == nil {
                result.status = .dnf
                result.reason = "exited with status \(code) without a report" + (crashMessage.map { ": \($0)" } ?? "")
            } else {
                result.metrics = report?.metrics
            }
            return result
        }

        /// Signals a process does not raise by crashing: someone stopped it (the run's own budget kills are
        /// `overBudget`). Interrupting a run with Ctrl-C or a kill of its process group stops the cell first, and the
        /// run records it before it stops too.
        static let signalsFromOutside: Set<Int32> = [SIGINT, SIGTERM, SIGHUP, SIGKILL]

        static func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    }

    /// Runs `_cell` on the job at `jobPath` and waits for it, telling `observer` how it goes.
    func run(jobPath: URL, observer: any RunObserver) throws -> Outcome {
        let cgroup = try memoryLimitBytes.map { try MemoryCgroup(name: "persistbench-\(getpid())", limitBytes: $0) }
        defer { try? cgroup?.remove() }
        let start = monotonicNanoseconds()
        let arguments =
            counting.map {
                $0.launcher.arguments(executable: executable, jobPath: jobPath.path, dumpDirectory: $0.dumpDirectory)
            } ?? [executable, "_cell", jobPath.path]
        let child = try ChildProcess(
            arguments: cgroup.map { $0.wrapping(arguments) } ?? arguments, outputPath: outputPath.path,
            progressPipe: true, extraEnvironment: counting?.launcher.environment ?? [])
        var recordsDone: Int?
        var overBudget: String?
        var ended: (ChildProcess.Ending, rusage)?
        while ended == nil {
            if let done = child.readProgress(waitingUpTo: 50) { recordsDone = done }
            ended = child.reapIfEnded()
            if ended != nil { break }
            let elapsed = Double(monotonicNanoseconds() - start) / 1e9
            observer.progress(elapsedSeconds: elapsed, recordsDone: recordsDone)
            if elapsed > timeBudgetSeconds {
                overBudget = "over the time budget of \(Self.format(seconds: timeBudgetSeconds))"
            } else if let resident = ProcessStats.residentBytes(ofProcess: child.pid), resident > memoryBudgetBytes {
                overBudget =
                    "over the memory budget of \(Quantity.formatBytes(memoryBudgetBytes))"
                    + " (resident \(Quantity.formatBytes(resident)))"
            }
            if overBudget != nil {
                child.kill()
                ended = child.waitUntilEnded()
            }
        }
        guard let (ending, usage) = ended else { throw BenchError("child \(child.pid) was not reaped") }
        let wall = Double(monotonicNanoseconds() - start) / 1e9
        let report = try? JSONDecoder().decode(CellReport.self, from: Data(contentsOf: reportPath))
        var exitedCleanly = false
        if case .exited(0) = ending { exitedCleanly = report != nil }
        var outcome = Outcome(
            ending: ending, usage: usage, wallSeconds: wall, recordsDone: recordsDone, overBudget: overBudget,
            report: report, crashMessage: exitedCleanly ? nil : Self.crashMessage(at: outputPath))
        if let cgroup {
            outcome.cappedPeakBytes = cgroup.peakBytes
            if case .signaled(SIGKILL) = ending, cgroup.oomKills > 0 { outcome.killedAtLimit = cgroup.limitBytes }
        }
        return outcome
    }

    /// The line of a crashed child's output that says why (Swift's "Fatal error: …"), without the stack trace.
    static func crashMessage(at url: URL) -> String? {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return nil }
        let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        let line = lines.first { $0.contains("Fatal error") || $0.contains("fatal error") } ?? lines.first
        return line.map { String($0.prefix(300)) }
    }

    static func format(seconds: Double) -> String {
        seconds >= 60 && seconds.truncatingRemainder(dividingBy: 60) == 0 ? "\(Int(seconds / 60)) min" : "\(seconds) s"
    }
}
