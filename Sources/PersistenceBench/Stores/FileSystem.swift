import Foundation

/// File helpers shared by the stores and the runner.
public enum FileSystem {
    /// The sum of the logical sizes of the regular files under `directory`.
    public static func logicalSize(of directory: URL) throws -> Int64 {
        guard
            let enumerator = FileManager.default.enumerator(
                at: directory, includingPropertiesForKeys: [.fileSizeKey, .isRegularFileKey])
        else { throw BenchError("cannot list \(directory.path)") }
        var total: Int64 = 0
        for case let url as URL in enumerator {
            let values = try url.resourceValues(forKeys: [.fileSizeKey, .isRegularFileKey])
            if values.isRegularFile == true { total += Int64(values.fileSize ?? 0) }
        }
        return total
    }

    /// Creates `directory` and its parents if missing.
    public static func makeDirectory(_ directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// Removes `url` if it exists.
    public static func remove(_ url: URL) throws {
        if FileManager.default.fileExists(atPath: url.path) {
            try FileManager.default.removeItem(at: url)
        }
    }

    /// Writes `data` to a temporary file beside `url`, then renames it over `url`: readers never see half a file.
    public static func writeAtomically(_ data: Data, to url: URL) throws {
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).tmp")
        try data.write(to: temporary)
        if rename(temporary.path, url.path) != 0 {
            throw BenchError("cannot rename \(temporary.path) to \(url.path): \(String(cString: strerror(errno)))")
        }
    }
}

/// The core's error: a message that names what failed.
public struct BenchError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
