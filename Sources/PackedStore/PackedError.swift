import Foundation

/// A failure of the `packed` store: what was being done, to which file, and why.
package struct PackedError: Error, CustomStringConvertible, Sendable {
    package let description: String

    init(_ description: String) { self.description = description }

    /// A failed system call, with `errno`'s message.
    static func system(_ call: String, _ path: String, errno code: Int32 = errno) -> PackedError {
        PackedError("\(call) \(path): \(String(cString: strerror(code))) (errno \(code))")
    }

    /// A file whose contents do not match the format: never read as data.
    static func corrupted(_ path: String, _ problem: String) -> PackedError {
        PackedError("\(path) is not a valid packed store file: \(problem)")
    }
}
