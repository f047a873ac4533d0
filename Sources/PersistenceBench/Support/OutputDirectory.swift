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
    /// Where a run keeps the output of a cell's child that crashed, was killed or failed (`cells/<store>-<workload>-<records>-<repetition>.txt`).
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
    /// not this tool's, or the earlier run.
    ///
    /// `owned` names more entries the command writes (`check`'s directory per baseline).
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
        // A lock file this tool made: a regular file of one link (a hard link would have the holder's name written
        // into a file elsewhere), empty or naming a process as the tool names one.
        var status = stat()
        let text = created ? "" : (try? String(contentsOfFile: lock, encoding: .utf8)) ?? "?"
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_nlink == 1,
            text.isEmpty || text.first?.isNumber == true && text.contains(" (")
        else {
            close(descriptor)
            throw BadInput(
                "\(option) '\(path)' holds a \(Self.lockName) this tool did not write (a link, or other content): "
                    + "name another directory")
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
            switch use {
            case .fresh(let replacing):
                try prepare(option: option, replacing: replacing, names: Self.toolNames.union(owned))
            case .existing:
                let found = links(among: Self.toolNames.union(owned))
                guard found.isEmpty else {
                    throw BadInput(
                        "\(option) '\(url.path)' has a symbolic link where this tool writes (\(Self.listed(found))): "
                            + "it writes through none; remove it")
                }
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
    ///
    /// A name of the tool's makes an earlier run only beside a file every run writes (`runMarkers`); within the tool's
    /// directories, `--replace` removes only what the tool writes there, and refuses anything else (a user's note in
    /// `charts/`).
    private func prepare(option: String, replacing: Bool, names: Set<String>) throws {
        let entries = try FileManager.default.contentsOfDirectory(atPath: url.path).filter { $0 != Self.lockName }
        let ours = entries.filter { names.contains($0) || Self.isTemporary($0, of: names) }.sorted()
        guard ours.contains(where: Self.runMarkers.contains) else {
            guard entries.isEmpty else {
                throw BadInput(
                    "\(option) '\(url.path)' holds files this tool did not write (\(Self.listed(entries.sorted()))) "
                        + "and no run of it: name a new or empty directory")
            }
            return
        }
        guard replacing else {
            throw BadInput(
                "\(option) '\(url.path)' holds an earlier run (\(Self.listed(ours))): --replace removes it first, or "
                    + "name another directory")
        }
        let strays = ours.flatMap { Self.strays(in: url.appendingPathComponent($0), named: $0, owned: names) }
        guard strays.isEmpty else {
            throw BadInput(
                "\(option) '\(url.path)': --replace removes only what this tool wrote, and \(Self.listed(strays)) "
                    + "\(strays.count == 1 ? "is" : "are") not: move \(strays.count == 1 ? "it" : "them"), or name "
                    + "another directory")
        }
        for entry in ours { try FileSystem.remove(url.appendingPathComponent(entry)) }
    }

    /// Files one of every run's kinds always writes: with one of them, the tool's names are an earlier run's.
    static let runMarkers: Set<String> = ["results.json", "crash.json", "check.md", scratchName]

    /// What inside the tool's entry `name` at `url` the tool does not write, by path relative to the output
    /// directory: a chart that is not an SVG, a kept store outside `stores/<store>/<workload>-<scale>/`, a side of a
    /// check without its results.json.
    ///
    /// A symbolic link is the link's to remove, and counts as the tool's.
    private static func strays(in url: URL, named name: String, owned: Set<String>) -> [String] {
        var status = stat()
        guard lstat(url.path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else { return [] }
        let children = ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted()
        func isDirectory(_ child: String) -> Bool {
            var status = stat()
            return lstat(url.appendingPathComponent(child).path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
        }
        switch name {
        case scratchName, "parts":
            return []
        case "charts":
            return children.filter { !$0.hasSuffix(".svg") || isDirectory($0) }.map { "\(name)/\($0)" }
        case "flames":
            return children.filter {
                !($0.hasSuffix(".svg") || $0.hasSuffix(FlameFiles.stacksSuffix)) || isDirectory($0)
            }
            .map { "\(name)/\($0)" }
        case keptOutputName:
            // A failed child's output and valgrind's log, named by their cell (`CellID.fileName`).
            return children.filter { isDirectory($0) || !($0.hasSuffix(".txt") || $0.hasSuffix(".valgrind.log")) }
                .map { "\(name)/\($0)" }
        case "stores":
            return children.flatMap { store -> [String] in
                guard isDirectory(store) else { return ["\(name)/\(store)"] }
                let cells =
                    (try? FileManager.default.contentsOfDirectory(atPath: url.appendingPathComponent(store).path))
                return (cells ?? []).filter { !$0.contains("-") }.map { "\(name)/\(store)/\($0)" }
            }
        default:
            // A side of a check, or a baseline's counted matrix: a run of its own.
            return children.isEmpty || children.contains("results.json") ? [] : [name]
        }
    }

    /// The tool's entries in the directory that are symbolic links, or hold one (outside the scratch, which a run
    /// removes link by link): what an existing run's claim refuses, since writing through one writes elsewhere.
    private func links(among names: Set<String>) -> [String] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: url.path) else { return [] }
        var found: [String] = []
        for entry in entries.sorted() where names.contains(entry) && entry != Self.scratchName {
            let path = url.appendingPathComponent(entry).path
            var status = stat()
            guard lstat(path, &status) == 0 else { continue }
            if status.st_mode & S_IFMT == S_IFLNK {
                found.append(entry)
                continue
            }
            guard status.st_mode & S_IFMT == S_IFDIR else { continue }
            for inner in (try? FileManager.default.subpathsOfDirectory(atPath: path)) ?? [] {
                var innerStatus = stat()
                if lstat(path + "/" + inner, &innerStatus) == 0, innerStatus.st_mode & S_IFMT == S_IFLNK {
                    found.append(entry + "/" + inner)
                }
            }
        }
        return found
    }

    /// An atomic write's temporary (`.results.json.tmp`), left by a run that was killed mid-write.
    private static func isTemporary(_ name: String, of names: Set<String>) -> Bool {
        name.hasPrefix(".") && name.hasSuffix(".tmp") && names.contains(String(name.dropFirst().dropLast(4)))
    }

    private static func listed(_ names: [String]) -> String {
        names.prefix(5).joined(separator: ", ") + (names.count > 5 ? " and \(names.count - 5) more" : "")
    }
}
