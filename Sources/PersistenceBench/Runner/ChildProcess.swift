import Foundation

/// A real child process started with posix_spawn, watched by the parent and reaped with wait4.
///
/// Foundation's `Process` reaps its children itself and throws the rusage away; the runner needs it.
final class ChildProcess {
    let pid: pid_t
    /// Read end of the child's progress pipe (its `ProgressChannel`), or -1.
    private let progressDescriptor: Int32
    private var progressBuffer: [UInt8] = []

    /// How a child ended.
    enum Ending {
        case exited(code: Int32)
        case signaled(signal: Int32)
    }

    /// Starts `arguments[0]` with `arguments`.
    ///
    /// Its stdout and stderr go to `outputPath`; with `progressPipe` its `ProgressChannel` descriptor is the write end
    /// of a pipe the parent reads with `readProgress()`. `extraEnvironment` (`NAME=value` entries) is added to this
    /// process's environment.
    init(arguments: [String], outputPath: String?, progressPipe: Bool, extraEnvironment: [String] = []) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let outputPath {
            posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }
        var pipeDescriptors: [Int32] = [-1, -1]
        if progressPipe {
            guard pipe(&pipeDescriptors) == 0 else { throw BenchError.system("pipe") }
            // Close the read end before the dup2: if the read end is the channel's descriptor, closing it afterwards
            // would close the progress pipe, and the child's next open file (a database) would take its number.
            let channel = ProgressChannel.descriptor
            posix_spawn_file_actions_addclose(&actions, pipeDescriptors[0])
            posix_spawn_file_actions_adddup2(&actions, pipeDescriptors[1], channel)
            if pipeDescriptors[1] != channel { posix_spawn_file_actions_addclose(&actions, pipeDescriptors[1]) }
        }
        let cArguments = arguments.map { strdup($0) } + [nil]
        defer { cArguments.forEach { free($0) } }
        var environment: [UnsafeMutablePointer<CChar>?] = []
        var index = 0
        while let entry = environ[index] {
            environment.append(entry)
            index += 1
        }
        let added = extraEnvironment.map { strdup($0) }
        defer { added.forEach { free($0) } }
        environment += added + [nil]
        var child: pid_t = 0
        let result = posix_spawn(&child, arguments[0], &actions, nil, cArguments, environment)
        if progressPipe { close(pipeDescriptors[1]) }
        guard result == 0 else {
            if progressPipe { close(pipeDescriptors[0]) }
            throw BenchError("cannot start \(arguments[0])", errno: result)
        }
        pid = child
        progressDescriptor = pipeDescriptors[0]
        if progressPipe { _ = fcntl(progressDescriptor, F_SETFL, fcntl(progressDescriptor, F_GETFL) | O_NONBLOCK) }
    }

    deinit {
        if progressDescriptor >= 0 { close(progressDescriptor) }
    }

    /// Waits up to `milliseconds` for progress, then returns the latest number the child reported, if any.
    func readProgress(waitingUpTo milliseconds: Int32) -> Int? {
        guard progressDescriptor >= 0 else {
            usleep(UInt32(milliseconds) * 1000)
            return nil
        }
        var descriptor = pollfd(fd: progressDescriptor, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, milliseconds)
        if ready <= 0 { return nil }
        if descriptor.revents & Int16(POLLIN) == 0 {
            // The child closed its end: it is exiting. Wait a millisecond, not the whole interval, so that the
            // caller reaps it as soon as it has ended (50 ms a cell was 35 s of `make bench`), without spinning on
            // a hung-up pipe.
            usleep(1000)
            return nil
        }
        var chunk = [UInt8](repeating: 0, count: 4096)
        let count = read(progressDescriptor, &chunk, chunk.count)
        guard count > 0 else { return nil }
        progressBuffer.append(contentsOf: chunk[0..<count])
        guard let lastNewline = progressBuffer.lastIndex(of: 0x0A) else { return nil }
        let lines = progressBuffer[..<lastNewline].split(separator: 0x0A)
        progressBuffer.removeSubrange(...lastNewline)
        return lines.last.flatMap { Int(String(decoding: $0, as: UTF8.self)) }
    }

    /// Reads what is left in the progress pipe once the child has ended, and returns the last number in it (or
    /// `latest` if there is none).
    func drainProgress(latest: Int?) -> Int? {
        var latest = latest
        guard progressDescriptor >= 0 else { return latest }
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(progressDescriptor, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            progressBuffer.append(contentsOf: chunk[0..<count])
        }
        for line in progressBuffer.split(separator: 0x0A) {
            if let number = Int(String(decoding: line, as: UTF8.self)) { latest = number }
        }
        progressBuffer.removeAll()
        return latest
    }

    /// Reaps the child if it has ended, returning how and its resource use; nil while it runs.
    func reapIfEnded() -> (Ending, rusage)? {
        var status: Int32 = 0
        var usage = rusage()
        let result = wait4(pid, &status, WNOHANG, &usage)
        guard result == pid else { return nil }
        return (Self.ending(of: status), usage)
    }

    /// Blocks until the child ends.
    func waitUntilEnded() -> (Ending, rusage) {
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        return (Self.ending(of: status), usage)
    }

    func kill() { _ = Glibc.kill(pid, SIGKILL) }

    // WIFEXITED and friends are C macros that Swift does not import.
    private static func ending(of status: Int32) -> Ending {
        let signal = status & 0x7F
        return signal == 0 ? .exited(code: (status >> 8) & 0xFF) : .signaled(signal: signal)
    }
}

/// Runs a short helper command and returns its standard output (for `git`).
enum Subprocess {
    static func output(of arguments: [String]) throws -> String {
        let outputPath = FileManager.default.temporaryDirectory
            .appendingPathComponent("persistbench-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).out").path
        defer { unlink(outputPath) }
        guard let path = executablePath(named: arguments[0]) else { throw BenchError("\(arguments[0]) not found") }
        let child = try ChildProcess(
            arguments: [path] + arguments.dropFirst(), outputPath: outputPath, progressPipe: false)
        guard case .exited(code: 0) = child.waitUntilEnded().0 else {
            throw BenchError("\(arguments.joined(separator: " ")) failed")
        }
        return (try String(contentsOfFile: outputPath, encoding: .utf8)).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func executablePath(named name: String) -> String? {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return directories.map { "\($0)/\(name)" }.first { access($0, X_OK) == 0 }
    }
}
