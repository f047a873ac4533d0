import Foundation

/// A memory cgroup for one cell's process (`run --memory-limit`): a limit the kernel enforces on the memory it
/// charges the process, page cache included, so that a store whose files are mapped pays for what the cap evicts
/// and a store that holds its data on the heap is killed at the cap, as jetsam kills an app extension.
///
/// A child of the cgroup this tool runs in, made before the cell's process starts and removed after it ended. The
/// cell's process starts as a shell that moves itself into the cgroup and then becomes the cell (`exec`), so that all
/// it does is charged there (the kernel does not move what a process was charged before it joins).
package struct MemoryCgroup {
    /// The smallest `--memory-limit` a run takes: a cell's process is charged 20–21 MiB (a release build at 10k,
    /// `process.cappedPeakBytes`) before its store does much, so a cap below this kills every cell before it
    /// measures anything.
    package static let minimumLimitBytes: Int64 = 16 << 20

    /// Bad input saying why, when this machine cannot set a memory cgroup's limit (`--memory-limit`).
    package static func requireSettable() throws {
        if case .failure(let reason) = parent() { throw BadInput(reason.description) }
    }

    /// Which interface the machine's memory controller speaks.
    package enum Version: Sendable {
        /// cgroup v1: /sys/fs/cgroup/memory/…: memory.limit_in_bytes, memory.max_usage_in_bytes, memory.oom_control.
        case v1
        /// cgroup v2 (unified): /sys/fs/cgroup/…: memory.max, memory.peak, memory.events.
        case v2
    }

    let version: Version
    package let directory: URL
    package let limitBytes: Int64

    /// The writable memory cgroup this process runs in, or why there is none: the message `run --memory-limit`
    /// refuses with.
    package static func parent() -> Result<(URL, Version), BenchError> {
        guard let lines = try? String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8) else {
            return .failure(BenchError("--memory-limit needs cgroups: this kernel has no /proc/self/cgroup"))
        }
        var candidates: [(URL, Version)] = []
        for line in lines.split(separator: "\n") {
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 3 else { continue }
            if fields[1].split(separator: ",").contains("memory") {
                candidates.append((URL(fileURLWithPath: "/sys/fs/cgroup/memory" + fields[2]), .v1))
            } else if fields[0] == "0", fields[1].isEmpty,
                namesMemory(URL(fileURLWithPath: "/sys/fs/cgroup/cgroup.controllers"))
            {
                candidates.append((URL(fileURLWithPath: "/sys/fs/cgroup" + fields[2]), .v2))
            }
        }
        guard let found = candidates.first else {
            return .failure(
                BenchError(
                    "--memory-limit needs the cgroup memory controller (v1 at /sys/fs/cgroup/memory, or v2's memory "
                        + "in /sys/fs/cgroup/cgroup.controllers); this machine mounts neither"))
        }
        // v2 gives a child cgroup a memory.max only where the parent hands the controller down.
        if found.1 == .v2, !namesMemory(found.0.appendingPathComponent("cgroup.subtree_control")) {
            return .failure(
                BenchError(
                    "--memory-limit makes a memory cgroup under \(found.0.path), whose cgroup.subtree_control does not "
                        + "hand the memory controller down (cgroup v2 allows that only to a cgroup without processes of "
                        + "its own): run the tool in a cgroup of its own whose parent enables +memory"))
        }
        guard access(found.0.path, W_OK) == 0 else {
            return .failure(
                BenchError(
                    "--memory-limit makes a memory cgroup under \(found.0.path), which this user cannot write: run as "
                        + "root, or in a cgroup delegated to this user"))
        }
        return .success(found)
    }

    /// Whether a cgroup v2 controller list (`cgroup.controllers`, `cgroup.subtree_control`) names `memory`.
    private static func namesMemory(_ file: URL) -> Bool {
        ((try? String(contentsOfFile: file.path, encoding: .utf8)) ?? "").split(whereSeparator: \.isWhitespace)
            .contains("memory")
    }

    /// Makes the cgroup `name` under `parent` with the limit; throws naming what the kernel refused.
    package init(name: String, limitBytes: Int64) throws {
        let (parent, version) = try Self.parent().get()
        self.version = version
        self.limitBytes = limitBytes
        directory = parent.appendingPathComponent(name)
        if FileManager.default.fileExists(atPath: directory.path) { try? Self.removeDirectory(directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        do {
            // Swap limited too, where the machine has swap: a heap-bound store at the cap must be killed, not swap.
            switch version {
            case .v1:
                try write("\(limitBytes)", to: "memory.limit_in_bytes")
                if FileManager.default.fileExists(atPath: directory.appendingPathComponent(Self.v1SwapLimit).path) {
                    try write("\(limitBytes)", to: Self.v1SwapLimit)
                } else if Self.swapIsOn {
                    throw BenchError(
                        "--memory-limit: this machine has swap on (/proc/swaps) and its cgroup v1 memory controller "
                            + "has no \(Self.v1SwapLimit) (swap accounting off), so a capped store would swap "
                            + "instead of being killed at the cap: turn swap off (swapoff -a) or boot with "
                            + "swapaccount=1")
                }
            case .v2:
                try write("\(limitBytes)", to: "memory.max")
                if (try? write("0", to: "memory.swap.max")) == nil, Self.swapIsOn {
                    throw BenchError(
                        "--memory-limit: this machine has swap on (/proc/swaps) and its cgroup v2 memory controller "
                            + "refused memory.swap.max = 0, so a capped store would swap instead of being killed at "
                            + "the cap: turn swap off (swapoff -a)")
                }
            }
        } catch {
            try? Self.removeDirectory(directory)
            throw error
        }
    }

    /// cgroup v1's limit on memory and swap together: set equal to the memory limit, it allows no swap.
    static let v1SwapLimit = "memory.memsw.limit_in_bytes"

    /// Whether the machine swaps to anything: /proc/swaps lists a device or file below its header.
    static var swapIsOn: Bool {
        ((try? String(contentsOfFile: "/proc/swaps", encoding: .utf8)) ?? "").split(separator: "\n").count > 1
    }

    /// `arguments` (a program and its arguments) started so that the process joins the cgroup before the program
    /// runs: `/bin/sh -c 'echo $$ > cgroup.procs && exec "$@"'`.
    package func wrapping(_ arguments: [String]) -> [String] {
        ["/bin/sh", "-c", #"echo $$ > "$0" && exec "$@""#, directory.appendingPathComponent("cgroup.procs").path]
            + arguments
    }

    /// The most memory the kernel charged the cgroup, page cache included; nil where the kernel does not say.
    package var peakBytes: Int64? {
        read(version == .v1 ? "memory.max_usage_in_bytes" : "memory.peak").flatMap {
            Int64($0.trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }

    /// How many times the kernel's out-of-memory killer killed a process of the cgroup.
    package var oomKills: Int {
        let text = read(version == .v1 ? "memory.oom_control" : "memory.events") ?? ""
        for line in text.split(separator: "\n") where line.hasPrefix("oom_kill ") {
            return Int(line.dropFirst("oom_kill ".count)) ?? 0
        }
        return 0
    }

    /// Removes the cgroup (its process has ended; what it charged goes to the parent).
    package func remove() throws { try Self.removeDirectory(directory) }

    private static func removeDirectory(_ directory: URL) throws {
        guard rmdir(directory.path) == 0 || errno == ENOENT else {
            throw BenchError.system("cannot remove the memory cgroup \(directory.path)")
        }
    }

    private func write(_ value: String, to file: String) throws {
        let path = directory.appendingPathComponent(file).path
        let descriptor = open(path, O_WRONLY)
        guard descriptor >= 0 else {
            throw BenchError.system("cannot open \(path)")
        }
        defer { close(descriptor) }
        let bytes = Array(value.utf8)
        guard Glibc.write(descriptor, bytes, bytes.count) == bytes.count else {
            throw BenchError.system("the kernel refused \(value) in \(path)")
        }
    }

    private func read(_ file: String) -> String? {
        try? String(contentsOfFile: directory.appendingPathComponent(file).path, encoding: .utf8)
    }
}
