import Foundation

/// Records of a shape the user states (`run --shape`): the CRUD questions of `ItemStore`, over any shape.
///
/// Each store makes its schema from the shape in its own idiom (columns, an entity description, a codec) and
/// answers through its library's documented calls.
package protocol RecordStore: Store {
    /// The table of `shape`'s records, its schema made if the store has none yet: untimed, once per open. The store
    /// keeps the table until it closes; asked again for the same shape, it returns the same table.
    func records(of shape: RecordShape) throws -> any RecordTable
}

/// A store's records of one shape (`RecordStore.records(of:)`): each call one unit of work in the store's idiom.
package protocol RecordTable: AnyObject {
    /// Inserts records not yet stored: one batch of a bulk load, in one transaction (`Store.finishInserting` ends
    /// the load).
    func insert(_ batch: [Record]) throws
    /// Inserts one record in its own transaction, durable on disk before returning.
    func insertDurably(_ record: Record) throws
    /// The record with this id, or nil.
    func record(id: Int64) throws -> Record?
    /// Calls `body` with every record in id order, streaming: never an array of all records.
    func forEachRecord(_ body: (Record) throws -> Void) throws
    /// Applies the changes (to existing records) in one transaction.
    func update(_ changes: [RecordUpdate]) throws
    /// One page of records, in `RecordPageQuery.areInIncreasingOrder` order.
    func page(_ query: RecordPageQuery) throws -> [Record]
}

/// A record table that may keep values as files beside its store (`sqlite+files`, `orm+external`): the crash
/// checks count the files no row names, which must not outlive the open that found them.
package protocol AttachmentTable: RecordTable {
    /// Its files; nil where it keeps none.
    var attachments: AttachmentFiles? { get }
    /// The names of the files its rows name.
    func namedFiles() throws -> Set<String>
}

extension AttachmentTable {
    /// The files in the attachments' folder that no row names.
    package func orphanedFiles() throws -> Int {
        guard let attachments else { return 0 }
        let named = try namedFiles()
        return try FileManager.default.contentsOfDirectory(atPath: attachments.directory.path).filter {
            !named.contains($0)
        }.count
    }
}
