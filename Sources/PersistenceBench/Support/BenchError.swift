import Glibc

/// An error of the harness or a store, with the one line a user reads: what failed and where.
package struct BenchError: Error, CustomStringConvertible, Sendable {
    package let description: String
    /// The C library's error number, for an error a system call returned (`system(_:)`); nil otherwise. A caller
    /// that branches on what failed matches it (`ENOSPC`, `EIO`), not the message.
    package let errno: Int32?

    package init(_ description: String) {
        self.description = description
        errno = nil
    }

    /// `what` failed with the system's error `code`: "flushing x: No space left on device".
    package init(_ what: String, errno code: Int32) {
        description = "\(what): \(String(cString: strerror(code)))"
        errno = code
    }

    /// `what` failed, with the C library's reason for the call that just failed: made right after that call,
    /// before anything else can change `errno`.
    package static func system(_ what: String) -> BenchError {
        BenchError(what, errno: Glibc.errno)
    }
}

/// Bad input found past the command line's parser (an unknown revision, a file that is not a run): the command
/// exits with status 2 and this one line, as for a bad option.
package struct BadInput: Error, CustomStringConvertible, Sendable {
    package let description: String
    package init(_ description: String) { self.description = description }
}
