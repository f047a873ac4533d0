/// Ids cut into consecutive ranges of at most `size`: the one way workloads and fixtures split their work into
/// transactions.
enum Batches {
    /// Calls `body` with ids 1...count, `size` at a time, in order; never for a count of 0.
    static func forEach(upTo count: Int, size: Int, _ body: (ClosedRange<Int64>) throws -> Void) rethrows {
        guard count > 0 else { return }
        try forEach(1...Int64(count), size: size, body)
    }

    /// Calls `body` with `ids`, `size` at a time, in order.
    static func forEach(_ ids: ClosedRange<Int64>, size: Int, _ body: (ClosedRange<Int64>) throws -> Void) rethrows {
        var start = ids.lowerBound
        while start <= ids.upperBound {
            let end = min(ids.upperBound, start + Int64(size) - 1)
            try body(start...end)
            start = end + 1
        }
    }
}

/// `store` as the capability a workload needs, or an error naming who needed it.
func requireCapability<Capability>(_ store: any Store, _ capability: Capability.Type, for user: String) throws
    -> Capability
{
    guard let typed = store as? Capability else {
        throw BenchError("\(user) needs \(capability); \(type(of: store)) is not one")
    }
    return typed
}
