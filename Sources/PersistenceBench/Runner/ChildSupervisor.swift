import Foundation

/// The parent side of every child of the tool (a cell, a fixture's load, each step of a crash check): writes the
/// child's request, starts it (`_child REQUEST`), reads its progress, lets the caller stop it, reaps it with wait4
/// for its rusage, and reads its reply.
struct ChildSupervisor {
    let executable: String
    /// Where the request, the reply and the child's output go.
    let directory: URL
    /// How long a wait for the child's progress lasts before its exit and the caller's `watch` are looked at again.
    let pollMilliseconds: Int32

    var requestPath: URL { directory.appendingPathComponent("request.json") }
    var replyPath: URL { directory.appendingPathComponent("reply.json") }
    /// The child's standard output and error: the line a crash leaves is read from it.
    var outputPath: URL { directory.appendingPathComponent("output.txt") }

    /// What the caller sees at each look at a running child.
    struct Look {
        let pid: pid_t
        let elapsedSeconds: Double
        /// The last number the child sent on its progress channel, if any.
        let progress: Int?
    }

    /// What the caller decides at each look.
    enum Decision {
        /// Wait for progress as long as the poll interval, then look again.
        case keepWatching
        /// Wait at most this long (and no longer than the poll interval), then look again.
        case lookAgainWithin(milliseconds: Int32)
        /// Kill the child, for this reason.
        case stop(StopReason)
    }

    /// Why a caller stopped a child.
    enum StopReason: Equatable, CustomStringConvertible {
        /// Over the run's wall-clock budget (a fixture's load, or a cell's) of this many seconds.
        case timeBudget(seconds: Double, fixture: Bool)
        /// Over the run's resident-memory budget, resident this much when stopped.
        case memoryBudget(limit: Int64, resident: Int64)
        /// A crash check's child that ran past its time limit.
        case timedOut
        /// A crash check's writer that never reported its open.
        case neverOpened
        /// A crash check's writer killed as planned.
        case plannedKill

        /// The words a cell's DNF reason begins with.
        var description: String {
            switch self {
            case .timeBudget(let seconds, let fixture):
                "over the \(fixture ? "fixture " : "")time budget of \(Quantity.formatBudget(seconds))"
            case .memoryBudget(let limit, let resident):
                "over the memory budget of \(Quantity.formatBytes(limit)) (resident \(Quantity.formatBytes(resident)))"
            case .timedOut: "timed out"
            case .neverOpened: "did not open"
            case .plannedKill: "kill"
            }
        }
    }

    /// What became of the child.
    struct Outcome {
        let ending: ChildProcess.Ending
        let usage: rusage
        let wallSeconds: Double
        /// The last number the child sent on its progress channel, read to the end once it had ended.
        let progress: Int?
        /// Why the caller stopped it, if it did.
        let stopped: StopReason?
        /// Its reply; nil if it ended without writing one.
        let reply: ChildReply?

        /// Whether it exited with status 0 and a reply.
        var exitedCleanly: Bool {
            guard case .exited(0) = ending else { return false }
            return reply != nil
        }

        /// The error its reply holds, if it failed.
        var error: String? {
            guard case .failed(let error) = reply else { return nil }
            return error
        }
    }

    /// Runs `job` in a child and waits for it.
    ///
    /// `wrap` turns the child's command into the one started (a memory cgroup's, callgrind's); `environment`
    /// (`NAME=value` entries) is added to the child's. `watch` is called after every wait, while the child runs.
    func run(
        _ job: ChildRequest.Job, reportsProgress: Bool = true, environment: [String] = [],
        wrap: ([String]) -> [String] = { $0 }, watch: (Look) -> Decision
    ) throws -> Outcome {
        try FileSystem.makeDirectory(directory)
        try FileSystem.remove(replyPath)
        let request = ChildRequest(job: job, replyPath: replyPath.path, reportsProgress: reportsProgress)
        try JSONEncoder().encode(request).write(to: requestPath)
        let start = monotonicNanoseconds()
        let child = try ChildProcess(
            arguments: wrap([executable, ChildExecution.commandName, requestPath.path]),
            outputPath: outputPath.path, progressPipe: true, extraEnvironment: environment)
        var latest: Int?
        var stopped: StopReason?
        var wait = pollMilliseconds
        var ended: (ChildProcess.Ending, rusage)?
        while ended == nil {
            if let number = child.readProgress(waitingUpTo: wait) { latest = number }
            ended = child.reapIfEnded()
            if ended != nil { break }
            switch watch(Look(pid: child.pid, elapsedSeconds: secondsSince(start), progress: latest)) {
            case .keepWatching:
                wait = pollMilliseconds
            case .lookAgainWithin(let milliseconds):
                wait = max(1, min(milliseconds, pollMilliseconds))
            case .stop(let reason):
                stopped = reason
                child.kill()
                ended = child.waitUntilEnded()
            }
        }
        guard let (ending, usage) = ended else { throw BenchError("child \(child.pid) was not reaped") }
        let wall = secondsSince(start)
        return Outcome(
            ending: ending, usage: usage, wallSeconds: wall, progress: child.drainProgress(latest: latest),
            stopped: stopped, reply: try? JSONDecoder().decode(ChildReply.self, from: Data(contentsOf: replyPath)))
    }

    /// The child's output, trimmed: for a message about a child that failed.
    var output: String {
        ((try? String(contentsOf: outputPath, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The line of a crashed child's output that says why, without the stack trace: the runtime's "Fatal error: …"
    /// (a debug build) or a C library's failed assertion, else the backtracer's "Swift runtime failure: …" (a release build, whose checks trap without
    /// a message) or "Program crashed: …", with the first frame in a source file of the program where it has one;
    /// else the first line that is not the backtracer's.
    static func crashMessage(at url: URL) -> String? {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return nil }
        return crashMessage(in: text)
    }

    static func crashMessage(in text: String) -> String? {
        let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        // The runtime's message, or a C library's failed assertion (LMDB's), before the backtracer's banner.
        if let fatal = lines.first(where: {
            $0.localizedCaseInsensitiveContains("fatal error") || $0.contains("Assertion") && $0.contains("failed")
        }) {
            return String(fatal.prefix(300))
        }
        func banner(_ marker: String) -> String? {
            lines.lazy.compactMap { line -> String? in
                guard line.hasPrefix("*** " + marker) else { return nil }
                return String(line.dropFirst(4).dropLast(line.hasSuffix(" ***") ? 4 : 0))
            }.first
        }
        guard let failure = banner("Swift runtime failure:") ?? banner("Program crashed:") else {
            return lines.first { !$0.hasPrefix("***") }.map { String($0.prefix(300)) }
        }
        // The first frame that names a line of a source file, the standard library's and generated code's aside.
        let place = lines.lazy.compactMap { line -> String? in
            guard let range = line.range(of: " at /", options: .backwards) else { return nil }
            let location = line[line.index(after: range.lowerBound)...].dropFirst(3)
            guard location.contains(".swift:"), !location.contains("<compiler-generated>") else { return nil }
            return location.split(separator: "/").last.map(String.init)
        }.first
        return String((failure + (place.map { " (at \($0))" } ?? "")).prefix(300))
    }
}
