import Foundation
import PersistenceBench
import SQLiteSupport

extension SQLiteItemStore: ConcurrentReadStore {
    /// A second connection to the same file, for the reader's thread: in WAL mode it reads the last commit while
    /// this connection writes, and neither waits for the other.
    public func makeConcurrentReader() throws -> any ItemReader {
        try SQLiteItemReader(path: connection.path, tuned: tuned)
    }
}

/// Item lookups on a connection of their own, with the writer's page-cache and map settings.
final class SQLiteItemReader: ItemReader {
    private let connection: SQLiteConnection
    private let selectByID: SQLiteStatement

    init(path: String, tuned: Bool) throws {
        connection = try SQLiteConnection(path: path)
        if tuned { try connection.execute(SQLiteItemStore.tunedPragmas) }
        selectByID = try connection.prepare("SELECT \(SQLiteItemStore.columns) FROM item WHERE id = ?")
    }

    func item(id: Int64) throws -> Item? {
        selectByID.bind(id, at: 1)
        defer { selectByID.reset() }
        return try selectByID.step() ? SQLiteItemStore.item(from: selectByID) : nil
    }

    func close() throws {
        selectByID.finalize()
        try connection.close()
    }
}
