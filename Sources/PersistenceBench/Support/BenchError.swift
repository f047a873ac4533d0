import Glibc

/// An error of the harness or a store, with the one line a user reads: what failed and where.
package struct BenchError: Error, CustomStringConvertible, Sendable {
    package let description: String
    package init(_ description: String) { self.description = description }

    /// `what` failed, with the C library's reason for the call that just failed ("flushing x: No space left on
    /// device"): made right after that call, before anything else can change `errno`.
    package static func system(_ what: String) -> BenchError {
        BenchError("\(what): \(String(cString: strerror(errno)))")
    }
}
