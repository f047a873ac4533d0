/// A batch of lookups by key in one statement, as the SQL stores ask it (`ItemStore.items(ids:)`).
public enum KeyBatch {
    /// Keys per `WHERE id IN (?, …)` statement: the statement is prepared once with this many placeholders and a
    /// longer batch is asked in chunks of this many; a shorter chunk binds NULL to the placeholders it leaves
    /// (`id IN (…, NULL)` matches no row), so that one prepared statement serves every batch.
    public static let keysPerStatement = 100

    /// "?, ?, …, ?": `keysPerStatement` placeholders.
    public static let placeholders = Array(repeating: "?", count: keysPerStatement).joined(separator: ", ")

    /// `found` (in any order, each id at most once) as the answers to `ids` in the order asked: nil where an id
    /// was not found, an item once per time its id was asked.
    public static func inAskedOrder(_ ids: [Int64], found: [Item]) -> [Item?] {
        var byID: [Int64: Item] = [:]
        byID.reserveCapacity(found.count)
        for item in found { byID[item.id] = item }
        return ids.map { byID[$0] }
    }
}
