import Foundation

/// A command's output directory, claimed for the command's life: one command writes a directory at a time, and it
/// writes only there and only what is its own.
///
/// The claim creates the directory if missing, checks that it takes new files (`OutputPath`), and takes an
/// exclusive `flock` on `.persistbench.lock` in it, which names the holder's process; the kernel releases it when
/// the holder ends, however it ends, so a `kill -9` leaves no lock to remove by hand. A fresh claim refuses a
/// directory holding only files this tool does not write, and an earlier run unless told to replace it; then every
/// entry of the earlier run is removed first (results, reports, charts, kept stores, cells' output: none is kept
/// beside the new run, no stale chart among them) and nothing else is touched. No removal follows a symbolic link:
/// a link where the tool writes is removed as a link.
package final class OutputDirectory {
    /// The lock file's name.
    package static let lockName = ".persistbench.lock"
    /// The name of a run's scratch directory (fixtures, the cell's store, its request and reply), removed when
    /// the run ends.
    package static let scratchName = ".persistbench-work"
    /// Where a run keeps the output of a cell's child that crashed, was killed or failed (`cells/<store>/…`).
    package static let keptOutputName = "cells"
    /// Every name this tool writes at the top of an output directory (the temporaries of its atomic writes too):
    /// `run`'s, `merge`'s and `report`'s results and reports, `run --keep-stores`' stores, `run --count`'s parts and
    /// flame graphs, `check`'s sides and summary, `crash`'s results, and crashed cells' output.
    package static let toolNames: Set<String> = [
        lockName, scratchName, "results.json", "results.csv", "report.md", "charts", "stores", "parts", "flames",
        keptOutputName, "base", "current", "confirmation", "check.md", "crash.json", "crash.md", "console.txt",
    ]

    /// What the command does with the directory.
    package enum Use: Sendable {
        /// Writes a new run (`run`, `crash`, `merge`, `check`): an empty or new directory, or an earlier run's
        /// when `replacing` (which is then removed first).
        case fresh(replacing: Bool)
        /// Goes on with, or renders again, the run already there (`run --resume`, `report`).
        case existing
    }

    package let url: URL
    private var descriptor: Int32

    /// Claims `path` (given as `option`) for `use`, or throws `BadInput` naming the holder, the entries that are
    /// not this tool's, or the earlier run. `owned` names more entries the command writes (`check`'s directory per
    /// baseline).
    package init(_ path: String, option: String, use: Use, owned: Set<String> = []) throws {
        try OutputPath.requireDirectory(path, option: option)
        url = URL(fileURLWithPath: path)
        let lock = url.appendingPathComponent(Self.lockName).path
        var existing = stat()
        let created = lstat(lock, &existing) != 0
        descriptor = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard descriptor >= 0 else {
            throw BadInput("cannot lock \(option) '\(path)': \(lock): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let holder = (try? String(contentsOfFile: lock, encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines)
            close(descriptor)
            throw BadInput(
                "\(option) '\(path)' is in use by \(holder.map { $0.isEmpty ? "another process" : "process \($0)" } ?? "another process"); "
                    + "one command writes a directory at a time: wait for it, or name another")
        }
        do {
            if case .fresh(let replacing) = use {
                try prepare(option: option, replacing: replacing, names: Self.toolNames.union(owned))
            }
        } catch {
            // A refused directory is left as it was found, without a lock file.
            if created { unlink(lock) }
            release()
            throw error
        }
        // Named once the claim holds: a refused claim leaves the lock file as it found it.
        let holder = "\(getpid()) (\(CommandLine.arguments.map(RunEnvironment.shellQuoted).joined(separator: " ")))\n"
        _ = ftruncate(descriptor, 0)
        _ = holder.withCString { pwrite(descriptor, $0, strlen($0), 0) }
    }

    deinit { release() }

    /// Releases the lock (the lock file stays, unlocked); calling it again does nothing.
    package func release() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
    }

    /// Refuses a directory of files this tool did not write, and an earlier run not to be replaced; removes the
    /// earlier run's entries otherwise, and leaves the rest (a note kept beside a committed run) as it is.
    private func prepare(option: String, replacing: Bool, names: Set<String>) throws {
        let entries = try FileManager.default.contentsOfDirectory(atPath: url.path).filter { $0 != Self.lockName }
        let ours = entries.filter { names.contains($0) || Self.isTemporary($0, of: names) }.sorted()
        let foreign = entries.filter { !ours.contains($0) }.sorted()
        guard !ours.isEmpty else {
            guard foreign.isEmpty else {
                throw BadInput(
                    "\(option) '\(url.path)' holds files this tool did not write (\(Self.listed(foreign))) and no run "
                        + "of it: name a new or empty directory")
            }
            return
        }
        guard replacing else {
            throw BadInput(
                "\(option) '\(url.path)' holds an earlier run (\(Self.listed(ours))): --replace removes it first, or "
                    + "name another directory")
        }
        for entry in ours { try FileSystem.remove(url.appendingPathComponent(entry)) }
    }

    /// An atomic write's temporary (`.results.json.tmp`), left by a run that was killed mid-write.
    private static func isTemporary(_ name: String, of names: Set<String>) -> Bool {
        name.hasPrefix(".") && name.hasSuffix(".tmp") && names.contains(String(name.dropFirst().dropLast(4)))
    }

    private static func listed(_ names: [String]) -> String {
        names.prefix(5).joined(separator: ", ") + (names.count > 5 ? " and \(names.count - 5) more" : "")
    }
}
