import PersistenceBench
import SQLiteSupport

/// `CONTAINS[c]` in a fetch: Core Data compiles a string containment to a call of a function it registers on each
/// of its connections (`NSCoreDataStringSearch(t0.ZTITLE, ?, …)`), which SQLite runs on every row the query reads.
///
/// Here the function folds ASCII case only, and compares bytes without making a string of each row's value (Core Data
/// makes a `CFString`), so that its cost per row is a lower bound of the framework's.
enum StringSearch {
    static let functionName = "ORMStringSearchCaseInsensitive"

    /// Defines the function on a connection of the container.
    static func register(on connection: SQLiteConnection) throws {
        try connection.createFunction(functionName, argumentCount: 2) { arguments in
            guard let value = arguments.text(at: 0), let text = arguments.text(at: 1) else { return 0 }
            return TitleMatcher.contains(text, in: value) ? 1 : 0
        }
    }
}

extension Attribute where Value == String {
    /// The attribute contains `text`, ASCII case-insensitively: NSPredicate's `title CONTAINS[c] %@`.
    package func containsCaseInsensitive(_ text: String) -> FetchPredicate<Root> {
        FetchPredicate(sql: "\(StringSearch.functionName)(\(columnSQL), ?)", bindings: [.text(text)])
    }
}
