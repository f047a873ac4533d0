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
    /// A run's cells grouped by (store, workload, scale): (scale, workload) in the run's order, stores within each
    /// in `storeOrder` (the run's shuffled order is not a reader's).
    static func groups(_ cells: [CellResult], storeOrder: [String]) -> (
        ordered: [(SeriesID, [CellResult])], byKey: [SeriesID: [CellResult]]
    ) {
        var order: [SeriesID] = []
        var byKey: [SeriesID: [CellResult]] = [:]
        for cell in cells {
            if byKey[cell.series] == nil { order.append(cell.series) }
            byKey[cell.series, default: []].append(cell)
        }
        var groupRank: [GroupID: Int] = [:]
        for key in order where groupRank[key.group] == nil {
            groupRank[key.group] = groupRank.count
        }
        let storeRank = Dictionary(storeOrder.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        // Ties (stores the order does not name) keep the run's order.
        let sorted = order.enumerated().sorted {
            let left = (groupRank[$0.element.group] ?? 0, storeRank[$0.element.store] ?? Int.max)
            let right = (groupRank[$1.element.group] ?? 0, storeRank[$1.element.store] ?? Int.max)
            return left != right ? left < right : $0.offset < $1.offset
        }.map(\.element)
        return (sorted.map { ($0, byKey[$0, default: []]) }, byKey)
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
            let values = logs[store, default: []]
            return (store, values.count, exp(values.reduce(0, +) / Double(values.count)))
        }
    }

    /// Slowest ÷ fastest; 1 for a single value.
    static func spread(_ values: [Double]) -> Double {
        guard let low = values.min(), let high = values.max(), low > 0 else { return 1 }
        return high / low
    }
}
