import Foundation

/// What `verify` found in a kept store's directory, which it never writes.
///
/// The directory's data files are checked where they are, without opening them for writing (each there, a regular
/// file, not empty, readable, and whatever the kind can see before an open: `damageBeforeOpen`); the store is then
/// opened on a copy in the temporary directory, so that neither the open's recovery, nor a lock file, WAL or
/// shared-memory file the engine makes, nor a file the open would create again touches the original.
package struct StoreVerification: Sendable {
    /// What the open's recovery did, on the copy (`IntegrityCheckingStore.recoveryNotes`).
    package var recovered: [String] = []
    /// Every problem found, one line each (a failed open or read among them); empty when the store is sound.
    package var problems: [String] = []
    /// The items read, when sound.
    package var items = 0

    /// Checks the store of `kind` in `directory`. Bad input when the kind has no integrity check, the directory
    /// is missing, holds none of the kind's files, or its copy does not fit in `scratch`'s file system.
    package init(_ kind: StoreKind, directory: URL, scratch: URL = FileManager.default.temporaryDirectory) throws {
        guard let type = kind.type as? any IntegrityCheckingStore.Type else {
            throw BadInput("\(kind.name) has no integrity check")
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue
        else { throw BadInput("'\(directory.path)' is not a store directory (missing, or not a directory)") }
        let files = type.storeFiles(in: directory, kind: kind.name)
        guard (files.data + files.traces).contains(where: { Self.exists(directory.appendingPathComponent($0)) })
        else {
            let names = files.data.count == 1 ? "no \(files.data[0])" : "none of \(files.data.joined(separator: ", "))"
            throw BadInput("'\(directory.path)' holds no \(kind.name) store: \(names) there")
        }
        for problem in files.data.compactMap({ Self.damage(of: $0, in: directory) }) where !problems.contains(problem) {
            problems.append(problem)
        }
        if problems.isEmpty { problems = type.damageBeforeOpen(in: directory, kind: kind.name).map(\.description) }
        if problems.isEmpty { problems = Self.entriesNotCopied(under: directory) }
        guard problems.isEmpty else { return }
        try check(kind, copying: directory, into: scratch)
    }

    /// Opens a copy of `directory` made in `scratch`, runs the integrity check and reads every item; what the
    /// check says names the original's paths.
    private mutating func check(_ kind: StoreKind, copying directory: URL, into scratch: URL) throws {
        let copy = scratch.appendingPathComponent("persistbench-verify-\(getpid())-\(UUID().uuidString)")
        try Self.requireRoom(copying: directory, into: scratch)
        defer { try? FileManager.default.removeItem(at: copy) }
        do {
            try FileSystem.copyForCell(from: directory, to: copy)
        } catch {
            throw BadInput("cannot copy '\(directory.path)' to \(copy.path) to check it: \(error)")
        }
        let original = { (line: String) in line.replacingOccurrences(of: copy.path, with: directory.path) }
        do {
            guard let opened = try kind.open(copy) as? any IntegrityCheckingStore else {
                throw BadInput("\(kind.name) has no integrity check")
            }
            defer { try? opened.close() }
            recovered = opened.recoveryNotes.map(original)
            problems = try opened.integrityProblems().map { original($0.description) }
            if problems.isEmpty { try opened.forEachItem { _ in items += 1 } }
        } catch let error as BadInput {
            throw error
        } catch {
            problems.append(original("\(error)"))
        }
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

    /// Bad input when the copy of `directory` would not fit in the free space of `scratch`'s file system.
    private static func requireRoom(copying directory: URL, into scratch: URL) throws {
        let size = try FileSystem.logicalSize(of: directory)
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
