import Foundation

/// Where a command writes, checked before it measures anything: a path it cannot write is bad input (exit 2) with
/// one line naming the option, the path and the system's reason, never an error thrown after the work is done.
package enum OutputPath {
    /// Creates `path` as a directory (with its parents) if missing and checks that a file can be created in it.
    package static func requireDirectory(_ path: String, option: String) throws {
        try requireWritableDirectory(URL(fileURLWithPath: path), for: path, option: option)
    }

    /// Checks that `path` can be written as a file: its directory exists (or is created) and takes new files, and
    /// the path itself is not a directory.
    package static func requireFile(_ path: String, option: String) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw BadInput("cannot write to \(option) '\(path)': it is a directory")
        }
        try requireWritableDirectory(
            URL(fileURLWithPath: path).deletingLastPathComponent(), for: path, option: option)
    }

    /// Creates `directory` if missing and checks that it takes new files; errors name `option` and `path`.
    private static func requireWritableDirectory(_ directory: URL, for path: String, option: String) throws {
        try requireNoFile(at: directory, option: option, path: path)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw BadInput("cannot write to \(option) '\(path)': \(reason(error, creating: directory))")
        }
        try requireWritable(directory: directory, for: path, option: option)
    }

    /// A file where a directory must be (or be created) is named as such, not by the "File exists" that creating
    /// the directory reports.
    private static func requireNoFile(at url: URL, option: String, path: String) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw BadInput("cannot write to \(option) '\(path)': \(url.path) is not a directory")
        }
    }

    private static func requireWritable(directory: URL, for path: String, option: String) throws {
        // access(2) answers for the real user; creating a file answers for what will happen (a read-only mount,
        // root on a directory it may not write).
        let probe = directory.appendingPathComponent(".persistbench-write-check-\(getpid())")
        let descriptor = open(probe.path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else {
            throw BadInput("cannot write to \(option) '\(path)': \(String(cString: strerror(errno)))")
        }
        close(descriptor)
        unlink(probe.path)
    }

    /// The system's reason for a failed directory creation, in a few words ("Not a directory").
    private static func reason(_ error: any Error, creating url: URL) -> String {
        if let cocoa = error as? CocoaError, let underlying = cocoa.underlying as NSError?,
            underlying.domain == NSPOSIXErrorDomain
        {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return "cannot create \(url.path)"
    }
}
