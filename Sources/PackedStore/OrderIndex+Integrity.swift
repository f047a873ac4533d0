import PersistenceBench

extension OrderIndex {
    /// What is wrong with the index against the rows it orders, or nil: each priority's segment must hold exactly
    /// the live rows of that priority, each once, in page order (out of stock first, then title bytes, then id).
    ///
    /// The open trusts the index whenever its header names the commit the rows' header names; this reads every
    /// entry, O(n) with one string comparison per neighbouring pair. Rows must have passed their own check first
    /// (their strings inside the arena).
    func damage(against view: PackedItemStore.MappedView, rowCount: Int) -> String? {
        var listed = [Bool](repeating: false, count: rowCount)
        var live = [Int](repeating: 0, count: 4)
        for row in 0..<rowCount where !view.isDeleted(row) { live[view.filterKey(ofRow: row) >> 1] += 1 }
        for priority in 0..<4 {
            let segment = segment(priorityCode: priority)
            let count = segment.count / 4
            guard count == live[priority] else {
                return "priority \(priority)'s segment lists \(count) rows; \(live[priority]) live rows have it"
            }
            var previous: Int?
            for index in 0..<count {
                let row = Int(UInt32(littleEndian: segment.loadUnaligned(fromByteOffset: 4 * index, as: UInt32.self)))
                guard row < rowCount, !view.isDeleted(row), view.filterKey(ofRow: row) >> 1 == priority,
                    !listed[row]
                else { return "entry \(index) of priority \(priority)'s segment: row \(row) is not one to list there" }
                listed[row] = true
                if let previous, !Self.precedes(previous, row, in: view) {
                    return "entry \(index) of priority \(priority)'s segment: row \(row) out of page order"
                }
                previous = row
            }
        }
        return nil
    }

    /// Whether row `a` comes before row `b` in page order.
    private static func precedes(_ a: Int, _ b: Int, in view: PackedItemStore.MappedView) -> Bool {
        let (first, second) = (view.row(a), view.row(b))
        let (stockA, stockB) = (view.filterKey(ofRow: a) & 1, view.filterKey(ofRow: b) & 1)
        if stockA != stockB { return stockA < stockB }
        let order = compare(first.title, second.title, in: view.arena)
        return order != 0 ? order < 0 : first.id < second.id
    }
}
