/// The page order of a store without an index (`memory`, `packed`): per value of the shape's filter field, the
/// ids of its records sorted by the sort field, then id (`RecordPageQuery.areInIncreasingOrder`), built from each
/// record's two values alone.
package struct RecordPageOrders: Sendable {
    private var orders: [FieldValue: [Int64]]

    /// Sorts `keys`: each record's filter value, sort value and id.
    package init(_ keys: some Sequence<(filter: FieldValue, sort: FieldValue, id: Int64)>) {
        var groups: [FieldValue: [(sort: FieldValue, id: Int64)]] = [:]
        for key in keys { groups[key.filter, default: []].append((key.sort, key.id)) }
        orders = groups.mapValues { $0.sorted(by: RecordPageQuery.areInIncreasingOrder).map(\.id) }
    }

    /// The ids of `query`'s page, in order.
    package func ids(of query: RecordPageQuery) -> ArraySlice<Int64> {
        let order = orders[query.filter] ?? []
        guard query.offset < order.count else { return [] }
        return order[query.offset..<min(order.count, query.offset + query.limit)]
    }
}
