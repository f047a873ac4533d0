import Foundation

/// This tool's own executable, which the runner starts for every cell.
package enum Executable {
    package static func path() throws -> String {
        let path = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw BenchError("cannot find this executable at /proc/self/exe")
        }
        return path
    }
}
