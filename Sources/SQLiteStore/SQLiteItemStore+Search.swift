import PersistenceBench
import SQLiteSupport

/// Search as you type: `LIKE '%text%'` (SQLite folds ASCII case in `LIKE`), a count and a page, every keystroke a
/// scan of the table; with `fullText` (`sqlite+fts`), an FTS5 table with the `trigram` tokenizer over the titles,
/// kept in sync by triggers in the writing transactions, answers every text of 3 characters or more.
extension SQLiteItemStore: SearchStore {
    /// The FTS5 index of `sqlite+fts`: an external-content table over `item.title` (the titles are not stored
    /// twice), and the three triggers that keep it in step with every insert, update and delete, as GRDB's
    /// `synchronize(withTable:)` writes them for `grdb+fts`, so that both stores hold the same schema.
    static let fullTextSchema = """
        CREATE VIRTUAL TABLE IF NOT EXISTS "item_fts" USING fts5(title, tokenize='''trigram''', content='item', \
        content_rowid='id');
        CREATE TRIGGER IF NOT EXISTS "__item_fts_ai" AFTER INSERT ON "item" BEGIN
            INSERT INTO "item_fts"("rowid", "title") VALUES (new."id", new."title");
        END;
        CREATE TRIGGER IF NOT EXISTS "__item_fts_ad" AFTER DELETE ON "item" BEGIN
            INSERT INTO "item_fts"("item_fts", "rowid", "title") VALUES('delete', old."id", old."title");
        END;
        CREATE TRIGGER IF NOT EXISTS "__item_fts_au" AFTER UPDATE ON "item" BEGIN
            INSERT INTO "item_fts"("item_fts", "rowid", "title") VALUES('delete', old."id", old."title");
            INSERT INTO "item_fts"("rowid", "title") VALUES (new."id", new."title");
        END;
        """

    /// The search statements, compiled once: by `LIKE`, and by the index for `sqlite+fts`.
    struct SearchStatements {
        let count: SQLiteStatement
        let page: SQLiteStatement
        let indexedCount: SQLiteStatement?
        let indexedPage: SQLiteStatement?
        /// The page with the count of every match beside each row (`COUNT(*) OVER ()`): one statement.
        let countedPage: SQLiteStatement
        let indexedCountedPage: SQLiteStatement?

        init(connection: SQLiteConnection, fullText: Bool) throws {
            let matching = "title LIKE ? ESCAPE '\\'"
            let indexed = "id IN (SELECT rowid FROM item_fts WHERE item_fts MATCH ?)"
            let order = "ORDER BY title, id LIMIT ?"
            count = try connection.prepare("SELECT COUNT(*) FROM item WHERE \(matching)")
            page = try connection.prepare("SELECT \(SQLiteItemStore.columns) FROM item WHERE \(matching) \(order)")
            indexedCount = fullText ? try connection.prepare("SELECT COUNT(*) FROM item WHERE \(indexed)") : nil
            indexedPage =
                fullText
                ? try connection.prepare("SELECT \(SQLiteItemStore.columns) FROM item WHERE \(indexed) \(order)") : nil
            let counted = "SELECT \(SQLiteItemStore.columns), COUNT(*) OVER () FROM item WHERE"
            countedPage = try connection.prepare("\(counted) \(matching) \(order)")
            indexedCountedPage = fullText ? try connection.prepare("\(counted) \(indexed) \(order)") : nil
        }

        var all: [SQLiteStatement] {
            [count, page, countedPage] + [indexedCount, indexedPage, indexedCountedPage].compactMap { $0 }
        }
    }

    package func search(_ search: TitleSearch) throws -> TitleSearchAnswer {
        let statements = searchStatements
        let (count, page, argument) =
            if let indexedCount = statements.indexedCount, let indexedPage = statements.indexedPage,
                search.text.utf8.count >= TitleSearch.shortestIndexedText
            {
                (indexedCount, indexedPage, search.fullTextPhrase)
            } else {
                (statements.count, statements.page, search.likePattern)
            }
        return try reading {
            let total = try count.withText(argument, at: 1) {
                defer { count.reset() }
                guard try count.step() else { throw BenchError("SELECT COUNT(*) returned no row") }
                return Int(count.int64(at: 0))
            }
            page.bind(Int64(search.limit), at: 2)
            let items = try page.withText(argument, at: 1) {
                defer { page.reset() }
                var items: [Item] = []
                items.reserveCapacity(search.limit)
                while try page.step() { items.append(Self.item(from: page)) }
                return items
            }
            return TitleSearchAnswer(count: total, page: items)
        }
    }

    /// One statement: the page's rows, each with the count of every match (column 7); no row, no match.
    package func searchInOneStatement(_ search: TitleSearch) throws -> TitleSearchAnswer {
        let statements = searchStatements
        let (statement, argument) =
            if let indexed = statements.indexedCountedPage, search.text.utf8.count >= TitleSearch.shortestIndexedText {
                (indexed, search.fullTextPhrase)
            } else {
                (statements.countedPage, search.likePattern)
            }
        return try reading {
            statement.bind(Int64(search.limit), at: 2)
            return try statement.withText(argument, at: 1) {
                defer { statement.reset() }
                var items: [Item] = []
                items.reserveCapacity(search.limit)
                var total = 0
                while try statement.step() {
                    items.append(Self.item(from: statement))
                    total = Int(statement.int64(at: 7))
                }
                return TitleSearchAnswer(count: total, page: items)
            }
        }
    }
}
