import GRDB
import PersistenceBench

/// Search as you type, as SQLiteData's `Item.where { $0.title.contains(text) }` runs it: `LIKE '%text%'`
/// through the query interface, a count and a page in one read; `grdb+statements` through cached statements.
/// `grdb+fts` adds an FTS5 table with the `trigram` tokenizer that GRDB creates and keeps in sync
/// (`synchronize(withTable:)`), and asks it for every text of 3 characters or more, with the SQL `sqlite+fts` runs.
extension GRDBItemStore: SearchStore {
    static func registerFullTextMigration(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("create item_fts") { db in
            try db.create(virtualTable: "item_fts", using: FTS5()) { t in
                t.synchronize(withTable: "item")
                t.tokenizer = FTS5TokenizerDescriptor(components: ["trigram"])
                t.column("title")
            }
        }
    }

    package func search(_ search: TitleSearch) throws -> TitleSearchAnswer {
        let indexed = fullText && search.text.utf8.count >= TitleSearch.shortestIndexedText
        return try database.read { db in
            switch flavor {
            case .records:
                let matching =
                    indexed
                    ? ItemRecord.filter(
                        sql: "id IN (SELECT rowid FROM item_fts WHERE item_fts MATCH ?)",
                        arguments: [search.fullTextPhrase])
                    : ItemRecord.filter(ItemRecord.Columns.title.like(search.likePattern, escape: "\\"))
                return TitleSearchAnswer(
                    count: try matching.fetchCount(db),
                    page: try matching.order(ItemRecord.Columns.title, ItemRecord.Columns.id).limit(search.limit)
                        .fetchAll(db).map(\.item))
            case .codable:
                let matching = CodableItemRecord.filter(Column("title").like(search.likePattern, escape: "\\"))
                return TitleSearchAnswer(
                    count: try matching.fetchCount(db),
                    page: try matching.order(Column("title"), Column("id")).limit(search.limit).fetchAll(db)
                        .map(\.item))
            case .statements:
                let matching = "FROM item WHERE title LIKE ? ESCAPE '\\'"
                return TitleSearchAnswer(
                    count: try Int.fetchOne(
                        db.cachedStatement(sql: "SELECT COUNT(*) \(matching)"), arguments: [search.likePattern]) ?? 0,
                    page: try ItemRecord.fetchAll(
                        db.cachedStatement(sql: "SELECT \(Self.columns) \(matching) ORDER BY title, id LIMIT ?"),
                        arguments: [search.likePattern, search.limit]
                    ).map(\.item))
            }
        }
    }

    /// One statement, in SQL as a GRDB user writes a window function (the query interface has none): the page's
    /// rows, each with the count of every match (`COUNT(*) OVER ()`), through a cached statement, every flavor.
    package func searchInOneStatement(_ search: TitleSearch) throws -> TitleSearchAnswer {
        let indexed = fullText && search.text.utf8.count >= TitleSearch.shortestIndexedText
        let matching =
            indexed ? "id IN (SELECT rowid FROM item_fts WHERE item_fts MATCH ?)" : "title LIKE ? ESCAPE '\\'"
        return try database.read { db in
            let statement = try db.cachedStatement(
                sql: "SELECT \(Self.columns), COUNT(*) OVER () AS total FROM item WHERE \(matching) "
                    + "ORDER BY title, id LIMIT ?")
            let rows = try Row.fetchCursor(
                statement, arguments: [indexed ? search.fullTextPhrase : search.likePattern, search.limit])
            var items: [Item] = []
            var total = 0
            while let row = try rows.next() {
                items.append(try ItemRecord(row: row).item)
                total = row["total"]
            }
            return TitleSearchAnswer(count: total, page: items)
        }
    }
}
