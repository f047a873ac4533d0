import PersistenceBench

/// Search as you type with no index: every keystroke reads every live row's title reference and compares the
/// title's bytes in the mapped arena with the text, no `String` made but for the page's items.
extension PackedItemStore: SearchStore {
    package func search(_ search: TitleSearch) throws -> TitleSearchAnswer {
        try Self.search(search, in: view, rowCount: header.rowCount)
    }

    /// The scan over `view`'s first `rowCount` rows: the store's own state, or a reader's snapshot (`+Live`).
    static func search(_ search: TitleSearch, in view: MappedView, rowCount: Int) throws -> TitleSearchAnswer {
        var scan = TitleSearchScan<Int>(search)
        for index in 0..<rowCount where !view.isDeleted(index) {
            let row = view.row(index)
            scan.offer(title: try view.bytes(row.title), id: row.id) { index }
        }
        return TitleSearchAnswer(count: scan.count, page: try scan.page.map(view.item(at:)))
    }
}
