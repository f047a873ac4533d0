import PersistenceBench

/// Search as you type with no index: every keystroke scans every title in the heap, counting the matches and
/// keeping the first page as it goes (`TitleSearchScan`), as a Swift app that filters its model array writes it.
extension MemoryItemStore: SearchStore {
    package func search(_ search: TitleSearch) throws -> TitleSearchAnswer {
        var scan = TitleSearchScan<Int>(search)
        slots.withUnsafeBufferPointer { slots in
            for index in slots.indices {
                guard let item = slots[index] else { continue }
                scan.offer(title: item.title, id: item.id) { index }
            }
        }
        return TitleSearchAnswer(
            count: scan.count,
            page: try scan.page.map { index in
                guard let item = slots[index] else { throw BenchError("\(name): a search matched an empty slot") }
                return item
            })
    }
}
