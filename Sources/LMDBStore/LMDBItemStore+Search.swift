import CLMDB
import PersistenceBench

/// Search as you type with no search index: every keystroke walks the title index (`ItemCodec`: every item's
/// title and id, and nothing else, so a scan of titles reads no notes), compares each title's bytes in the map
/// with the text, and reads the page's items by id, all in one read transaction.
extension LMDBItemStore: SearchStore {
    package func search(_ search: TitleSearch) throws -> TitleSearchAnswer {
        try environment.read { try self.search(search, in: $0) }
    }

    func search(_ search: TitleSearch, in transaction: LMDBTransaction) throws -> TitleSearchAnswer {
        var scan = TitleSearchScan<Int64>(search)
        try transaction.withCursor(on: titleIndex) { cursor in
            var entry = try cursor.move(MDB_FIRST)
            while let current = entry {
                let id = try ItemCodec.id(fromTitleIndexValue: current.value)
                scan.offer(title: ItemCodec.title(fromTitleIndexValue: current.value), id: id) { id }
                entry = try cursor.move(MDB_NEXT)
            }
        }
        return TitleSearchAnswer(
            count: scan.count,
            page: try scan.page.map { id in
                guard let item = try storedItem(id: id, in: transaction) else {
                    throw LMDBError.corrupted("searching titles", "the title index names item \(id), not stored")
                }
                return item
            })
    }
}
