import Glibc

/// An error of the harness or a store, with the one line a user reads: what failed and where.
package struct BenchError: Error, CustomStringConvertible, Sendable {
    package let description: String

    package init(_ description: String) {
        self.description = description
    }

    /// `what` failed with the system's error `code`, both named in the message: "flushing x: No space left on
    /// device".
    ///
    /// No caller branches on the code, so only the message keeps it.
    package init(_ what: String, errno code: Int32) {
        description = "\(what): \(String(cString: strerror(code)))"
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
