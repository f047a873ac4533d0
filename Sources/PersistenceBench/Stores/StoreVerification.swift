import Foundation

/// What `verify` found in a kept store's directory, which it never writes.
///
/// The directory's data files are checked where they are, without opening them for writing (each there, a regular
/// file, not empty, readable, and whatever the kind can see before an open: `damageBeforeOpen`); the store is then
/// opened on a copy in the temporary directory, so that neither the open's recovery, nor a lock file, WAL or
/// shared-memory file the engine makes, nor a file the open would create again touches the original. The copy is
/// opened and checked in a child process of the tool: an engine that aborts on a damaged page (LMDB's assertions)
/// is then a finding, not the end of `verify`.
package struct StoreVerification: Sendable {
    /// What the open of a copy and its check found, as the child reports it.
    package struct Findings: Codable, Sendable {
        /// What the open's recovery did, on the copy (`IntegrityCheckingStore.recoveryNotes`).
        package var recovered: [String] = []
        /// Every problem found, one line each (a failed open or read among them); empty when the store is sound.
        package var problems: [String] = []
        /// The items read, when sound.
        package var items = 0
    }

    private var findings = Findings()
    package var recovered: [String] { findings.recovered }
    package var problems: [String] { findings.problems }
    package var items: Int { findings.items }

    /// Checks the store of `kind` in `directory`, its copy opened by a child run of `executable` (this tool).
    ///
    /// Bad input when the kind has no integrity check, the directory is missing, holds none of the kind's files, or its
    /// copy does not fit in `scratch`'s file system (which must exist).
    package init(
        _ kind: StoreKind, directory: URL, executable: String,
        scratch: URL = FileManager.default.temporaryDirectory
    ) throws {
        guard let type = kind.type as? any IntegrityCheckingStore.Type else {
            throw BadInput("\(kind.name) has no integrity check")
        }
        var isDirectory: ObjCBool = false
        guard !directory.path.isEmpty,
            FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue
        else { throw BadInput("'\(directory.path)' is not a store directory (missing, or not a directory)") }
        let files = type.storeFiles(in: directory, kind: kind.name)
        guard (files.data + files.traces).contains(where: { Self.exists(directory.appendingPathComponent($0)) })
        else {
            let names = files.data.count == 1 ? "no \(files.data[0])" : "none of \(files.data.joined(separator: ", "))"
            throw BadInput("'\(directory.path)' holds no \(kind.name) store: \(names) there")
        }
        for problem in files.data.compactMap({ Self.damage(of: $0, in: directory) })
        where !findings.problems.contains(problem) {
            findings.problems.append(problem)
        }
        if problems.isEmpty {
            findings.problems = type.damageBeforeOpen(in: directory, kind: kind.name).map(\.description)
        }
        if problems.isEmpty { findings.problems = Self.entriesNotCopied(under: directory) }
        guard problems.isEmpty else { return }
        try check(kind, copying: directory, into: scratch, executable: executable)
    }

    /// Opens a copy of `directory` made in `scratch` in a child process, which runs the integrity check and reads
    /// every item; what it says names the original's paths.
    private mutating func check(_ kind: StoreKind, copying directory: URL, into scratch: URL, executable: String)
        throws
    {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: scratch.path, isDirectory: &isDirectory), isDirectory.boolValue
        else { throw BadInput("verify checks a copy in \(scratch.path), which is not a directory; set TMPDIR") }
        let work = scratch.appendingPathComponent("persistbench-verify-\(getpid())-\(UUID().uuidString)")
        let copy = work.appendingPathComponent("store")
        try Self.requireRoom(copying: directory, into: scratch)
        defer { try? FileSystem.remove(work) }
        do {
            try FileSystem.copyForCell(from: directory, to: copy, sparse: true)
        } catch {
            throw BadInput("cannot copy '\(directory.path)' to \(copy.path) to check it: \(error)")
        }
        let original = { (line: String) in line.replacingOccurrences(of: copy.path, with: directory.path) }
        let supervisor = ChildSupervisor(executable: executable, directory: work, pollMilliseconds: 100)
        let outcome = try supervisor.run(
            .integrity(IntegrityJob(store: kind.name, directory: copy.path)), reportsProgress: false
        ) { _ in .keepWatching }
        switch (outcome.reply, outcome.ending) {
        case (.integrity(let found)?, _):
            findings = Findings(
                recovered: found.recovered.map(original), problems: found.problems.map(original), items: found.items)
        case (.failed(let error)?, _):
            findings.problems = [original(error)]
        case (_, .signaled(let signal)):
            let why = ChildSupervisor.crashMessage(at: supervisor.outputPath).map { ": \(original($0))" } ?? ""
            findings.problems = [
                "\(kind.name)'s engine crashed reading the store (signal \(signal), "
                    + "\(String(cString: strsignal(signal))))\(why)"
            ]
        case (_, .exited(let status)):
            let why = ChildSupervisor.crashMessage(at: supervisor.outputPath).map { ": \(original($0))" } ?? ""
            findings.problems = ["the check of the copy exited with status \(status) without a report\(why)"]
        }
    }

    /// The child's side: opens the store of `kind` in `directory` (a copy), runs its integrity check and reads
    /// every item.
    package static func inspect(_ kind: StoreKind, directory: URL) throws -> Findings {
        var findings = Findings()
        do {
            guard let opened = try kind.open(directory) as? any IntegrityCheckingStore else {
                throw BadInput("\(kind.name) has no integrity check")
            }
            defer { try? opened.close() }
            findings.recovered = opened.recoveryNotes
            findings.problems = try opened.integrityProblems().map(\.description)
            if findings.problems.isEmpty { try opened.forEachItem { _ in findings.items += 1 } }
        } catch let error as BadInput {
            throw error
        } catch {
            findings.problems.append("\(error)")
        }
        return findings
    }

    /// Whether `url` names something, a dangling symbolic link included.
    private static func exists(_ url: URL) -> Bool {
        var status = stat()
        return lstat(url.path, &status) == 0
    }

    /// What is wrong with data file `name` where it is, or nil: missing (or the folder it is in), not a regular
    /// file, empty or unreadable.
    private static func damage(of name: String, in directory: URL) -> String? {
        let url = directory.appendingPathComponent(name)
        let path = url.path
        var status = stat()
        guard lstat(path, &status) == 0 else {
            let folder = url.deletingLastPathComponent()
            if folder.path != directory.path, !exists(folder) { return "\(folder.path): missing" }
            return "\(path): missing"
        }
        guard status.st_mode & S_IFMT == S_IFREG else { return "\(path): not a regular file" }
        guard status.st_size > 0 else { return "\(path): 0 bytes" }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return "\(path): cannot be read (\(String(cString: strerror(errno))))" }
        close(descriptor)
        return nil
    }

    /// Entries under `directory` that are neither regular files nor directories (a symbolic link, a socket): no
    /// store writes one, and the copy does not follow one out of the directory.
    private static func entriesNotCopied(under directory: URL) -> [String] {
        guard let names = try? FileManager.default.subpathsOfDirectory(atPath: directory.path) else {
            return ["\(directory.path): cannot be listed"]
        }
        return names.sorted().compactMap { name in
            let path = directory.appendingPathComponent(name).path
            var status = stat()
            guard lstat(path, &status) == 0 else { return "\(path): cannot be read" }
            let type = status.st_mode & S_IFMT
            return type == S_IFREG || type == S_IFDIR ? nil : "\(path): neither a regular file nor a directory"
        }
    }

    /// Bad input when the copy of `directory` would not fit in the free space of `scratch`'s file system: its
    /// allocated bytes, as the sparse copy writes only those.
    private static func requireRoom(copying directory: URL, into scratch: URL) throws {
        let size = try FileSystem.allocatedSize(of: directory)
        var status = statvfs()
        guard statvfs(scratch.path, &status) == 0 else { return }
        let free = Int64(status.f_bavail) * Int64(status.f_frsize)
        guard size < free else {
            throw BadInput(
                "verify checks a copy of '\(directory.path)' (\(size) bytes) and \(scratch.path) has \(free) bytes "
                    + "free; set TMPDIR to a directory with room")
        }
    }
}
