/// An error of the harness or a store, with the one line a user reads: what failed and where.
public struct BenchError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
