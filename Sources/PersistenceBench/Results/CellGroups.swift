import Foundation

/// What a change in one metric means.
package enum Verdict: String, Codable, Sendable, Comparable {
    case better, same, worse

    package static func < (lhs: Verdict, rhs: Verdict) -> Bool { lhs.rank < rhs.rank }
    private var rank: Int {
        switch self {
        case .better: 0
        case .same: 1
        case .worse: 2
        }
    }

    /// Worse when `ratio` (current ÷ baseline, where larger is worse) leaves the band above, better below it.
    init(ratio: Double, band: Double) {
        self = ratio > band ? .worse : ratio < 1 / band ? .better : .same
    }
}

/// A run's cells by (store, workload, scale), as the comparisons of two runs read them.
enum CellGroups {
    struct Key: Hashable {
        var store: String
        var workload: String
        var scale: Scale
    }

    /// A run's cells grouped by (store, workload, scale): (scale, workload) in the run's order, stores within each
    /// in `storeOrder` (the run's shuffled order is not a reader's).
    static func groups(_ cells: [CellResult], storeOrder: [String]) -> (
        ordered: [(Key, [CellResult])], byKey: [Key: [CellResult]]
    ) {
        var order: [Key] = []
        var byKey: [Key: [CellResult]] = [:]
        for cell in cells {
            let key = Key(store: cell.store, workload: cell.workload, scale: cell.scale)
            if byKey[key] == nil { order.append(key) }
            byKey[key, default: []].append(cell)
        }
        var groupRank: [String: Int] = [:]
        for key in order where groupRank["\(key.scale) \(key.workload)"] == nil {
            groupRank["\(key.scale) \(key.workload)"] = groupRank.count
        }
        let storeRank = Dictionary(storeOrder.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        // Ties (stores the order does not name) keep the run's order.
        let sorted = order.enumerated().sorted {
            let left = (
                groupRank["\($0.element.scale) \($0.element.workload)"]!, storeRank[$0.element.store] ?? Int.max
            )
            let right = (
                groupRank["\($1.element.scale) \($1.element.workload)"]!, storeRank[$1.element.store] ?? Int.max
            )
            return left != right ? left < right : $0.offset < $1.offset
        }.map(\.element)
        return (sorted.map { ($0, byKey[$0]!) }, byKey)
    }

    /// Geometric means of ratios per store, stores in first-seen order.
    static func geometricMeans(_ ratios: [(store: String, ratio: Double)]) -> [(key: String, count: Int, mean: Double)]
    {
        var order: [String] = []
        var logs: [String: [Double]] = [:]
        for (store, ratio) in ratios {
            if logs[store] == nil { order.append(store) }
            logs[store, default: []].append(log(ratio))
        }
        return order.map { store in
            let values = logs[store]!
            return (store, values.count, exp(values.reduce(0, +) / Double(values.count)))
        }
    }

    /// Slowest ÷ fastest; 1 for a single value.
    static func spread(_ values: [Double]) -> Double {
        guard let low = values.min(), let high = values.max(), low > 0 else { return 1 }
        return high / low
    }
}
