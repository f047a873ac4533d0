import Foundation

/// A workload whose keys are drawn from the seed before its timed phase, so that anyone can see what a cell used
/// without running it (`persistbench keys`) and the report can state how skewed they were.
package protocol KeyedWorkload: Workload {
    /// Whether the keys are skewed (zipfian or latest) rather than uniform: the report states their distribution.
    var skewedKeys: Bool { get }
    /// Every key a cell of `scale` records with `seed` uses, in order: what it does with the key, and the key if a
    /// chooser drew it (an insert's new key is not drawn).
    func keyTrace(scale: Int, seed: UInt64) -> [KeyDraw]
}

extension KeyedWorkload {
    /// `persistbench keys`: the first `count` (nil: every) keys a cell of `scale` records uses with `seed`, one a
    /// line, or with `summary` how they spread over the scale's keys.
    package func keys(scale: Int, seed: UInt64, count: Int?, summary: Bool) -> String {
        var trace = keyTrace(scale: scale, seed: seed)
        if let count { trace = Array(trace.prefix(count)) }
        guard summary else { return trace.map(\.line).joined(separator: "\n") }
        return "\(name) at \(Scale(records: scale)), seed \(seed): "
            + KeySummary(keys: trace.compactMap(\.drawn), keyCount: scale).description
    }
}

/// One use of a key: `READ 17`, `SCAN 17 42`, `INSERT 100001`.
package struct KeyDraw: Equatable, Sendable {
    /// The operation's words, as `persistbench keys` prints them.
    package var line: String
    /// The key a chooser drew; nil for a key that was not drawn (an insert's).
    package var drawn: Int64?

    package init(line: String, drawn: Int64?) {
        self.line = line
        self.drawn = drawn
    }
}

/// How a sequence of drawn keys spreads over a key space: the numbers YCSB users compare.
package struct KeySummary: Equatable, Sendable, CustomStringConvertible {
    package var draws: Int
    /// Keys drawn at least once.
    package var distinct: Int
    /// The share of the draws that went to the most drawn key.
    package var hottestShare: Double
    /// The share of the draws that went to the most drawn 1 % (and 10 %) of the `keyCount` keys.
    package var top1PercentShare: Double
    package var top10PercentShare: Double

    /// Summarises `keys` drawn over a space of `keyCount` keys.
    package init(keys: [Int64], keyCount: Int) {
        var counts: [Int64: Int] = [:]
        for key in keys { counts[key, default: 0] += 1 }
        let descending = counts.values.sorted(by: >)
        let total = Double(max(keys.count, 1))
        func share(ofTop fraction: Double) -> Double {
            let top = max(1, Int((Double(keyCount) * fraction).rounded(.up)))
            return Double(descending.prefix(top).reduce(0, +)) / total
        }
        draws = keys.count
        distinct = counts.count
        hottestShare = Double(descending.first ?? 0) / total
        top1PercentShare = share(ofTop: 0.01)
        top10PercentShare = share(ofTop: 0.10)
    }

    /// `100k draws: hottest key 3.8 %, top 1 % of keys 30.7 %, top 10 % 50.7 %, 72.2k distinct keys`.
    package var description: String {
        func percent(_ share: Double) -> String { String(format: share < 0.01 ? "%.2f %%" : "%.1f %%", share * 100) }
        func count(_ value: Int) -> String {
            value >= 1_000_000
                ? String(format: "%.2fM", Double(value) / 1e6)
                : value >= 1000 ? String(format: "%.1fk", Double(value) / 1e3) : "\(value)"
        }
        return "\(count(draws)) draws: hottest key \(percent(hottestShare)), top 1 % of keys "
            + "\(percent(top1PercentShare)), top 10 % \(percent(top10PercentShare)), \(count(distinct)) distinct keys"
    }
}
