import Foundation
import PersistenceBench
import SQLiteSupport

/// Records of a shape in `sqlite`: a `record` table with a column per field (dates as whole milliseconds), an
/// index per indexed field and one on the page's filter and sort, and prepared statements as for items.
///
/// `sqlite+files` keeps every blob as a file beside the database (`AttachmentFiles`), its name in a
/// `<field>_file` column: the file is written and flushed before the transaction that names it commits, and
/// files no row names are removed when the table is opened.
extension SQLiteItemStore: RecordStore {
    package func records(of shape: RecordShape) throws -> any RecordTable {
        if let table = recordTable, table.shape == shape { return table }
        recordTable?.finalize()
        let table = try SQLiteRecordTable(
            shape: shape, connection: connection, reading: { [unowned self] in try self.reading($0) },
            attachments: blobsAsFiles && shape.fields.contains { $0.type == .blob }
                ? try AttachmentFiles(directory: directory.appendingPathComponent("attachments")) : nil)
        recordTable = table
        return table
    }
}

final class SQLiteRecordTable: AttachmentTable {
    let shape: RecordShape
    let connection: SQLiteConnection
    /// The store's read call wrapper (a read transaction for `sqlite+txn`).
    let reading: (() throws -> Void) throws -> Void
    /// Where blobs go (`sqlite+files`); nil where they stay in their rows.
    let attachments: AttachmentFiles?
    /// The columns a row is read from: the fields', then each blob field's file column (`sqlite+files`).
    let columns: String
    let blobFields: [Int]
    let insertStatement: SQLiteStatement
    let selectByID: SQLiteStatement
    let selectAll: SQLiteStatement
    let selectPage: SQLiteStatement
    /// One `UPDATE` per field (the one `update` changes), and with files, per blob field its file column's too.
    let updateStatements: [SQLiteStatement]

    init(
        shape: RecordShape, connection: SQLiteConnection, reading: @escaping (() throws -> Void) throws -> Void,
        attachments: AttachmentFiles?
    ) throws {
        self.shape = shape
        self.connection = connection
        self.reading = reading
        self.attachments = attachments
        // A shape without blobs has no files (`SQLiteItemStore.records(of:)` passes none).
        blobFields = attachments == nil ? [] : shape.fields.indices.filter { shape.fields[$0].type == .blob }
        let fileColumns = blobFields.map { "\"\(shape.fields[$0].name)_file\"" }
        let fieldColumns = shape.fields.map { "\"\($0.name)\"" }
        let names = ["id"] + fieldColumns + fileColumns
        columns = names.joined(separator: ", ")
        try connection.transaction {
            try connection.execute(Self.schema(of: shape, fileColumns: fileColumns))
        }
        insertStatement = try connection.prepare(
            "INSERT INTO record (\(columns)) VALUES (\(names.map { _ in "?" }.joined(separator: ", ")))")
        selectByID = try connection.prepare("SELECT \(columns) FROM record WHERE id = ?")
        selectAll = try connection.prepare("SELECT \(columns) FROM record ORDER BY id")
        selectPage = try connection.prepare(
            "SELECT \(columns) FROM record WHERE \"\(shape.pageFilter)\" = ? ORDER BY \"\(shape.pageSort)\", id "
                + "LIMIT ? OFFSET ?")
        updateStatements = try shape.fields.map { field in
            let file = attachments != nil && field.type == .blob ? ", \"\(field.name)_file\" = ?" : ""
            return try connection.prepare("UPDATE record SET \"\(field.name)\" = ?\(file) WHERE id = ?")
        }
        try attachments?.removeOrphans(keeping: namedFiles())
    }

    /// The files the rows name (none without files).
    func namedFiles() throws -> Set<String> {
        guard attachments != nil else { return [] }
        let fileColumns = blobFields.map { "\"\(shape.fields[$0].name)_file\"" }
        var named = Set<String>()
        try reading {
            let statement = try connection.prepare("SELECT \(fileColumns.joined(separator: ", ")) FROM record")
            defer { statement.finalize() }
            while try statement.step() {
                for column in fileColumns.indices where !statement.isNull(at: Int32(column)) {
                    named.insert(statement.text(at: Int32(column)))
                }
            }
        }
        return named
    }

    /// `CREATE TABLE record` from the shape, as GRDB's `create(table:)` writes it, with its indexes.
    static func schema(of shape: RecordShape, fileColumns: [String]) -> String {
        let fields = shape.fields.map { field in
            let type =
                switch field.type {
                case .integer, .date: "INTEGER"
                case .double: "DOUBLE"
                case .bool: "BOOLEAN"
                case .text: "TEXT"
                case .blob: "BLOB"
                }
            // A blob kept as a file has a NULL in its own column.
            let kept = fileColumns.isEmpty || field.type != .blob
            return "\"\(field.name)\" \(type)\(kept ? " NOT NULL" : "")"
        }
        var sql =
            "CREATE TABLE IF NOT EXISTS \"record\" (\"id\" INTEGER PRIMARY KEY, "
            + (fields + fileColumns.map { "\($0) TEXT" }).joined(separator: ", ") + ");\n"
        for field in shape.fields where field.indexed {
            sql += "CREATE INDEX IF NOT EXISTS \"record_on_\(field.name)\" ON \"record\"(\"\(field.name)\");\n"
        }
        sql +=
            "CREATE INDEX IF NOT EXISTS \"record_on_\(shape.pageFilter)_\(shape.pageSort)\" ON "
            + "\"record\"(\"\(shape.pageFilter)\", \"\(shape.pageSort)\");"
        return sql
    }

    func finalize() {
        for statement in [insertStatement, selectByID, selectAll, selectPage] + updateStatements {
            statement.finalize()
        }
    }

    func insert(_ batch: [Record]) throws {
        let files = try write(batch)
        try connection.transaction {
            for (record, names) in zip(batch, files) { try insert(record, files: names) }
        }
    }

    func insertDurably(_ record: Record) throws {
        let files = try write([record])
        try connection.transaction { try insert(record, files: files[0]) }
    }

    /// Writes the blobs of `batch` as files and flushes their directory, before the commit that names them: per
    /// record, each blob field's file name (none without files).
    private func write(_ batch: [Record]) throws -> [[String]] {
        guard let attachments, !blobFields.isEmpty else { return batch.map { _ in [] } }
        let names = try batch.map { record in
            try blobFields.map { field in
                guard case .blob(let bytes) = record.values[field] else {
                    throw BenchError("a blob field without a blob")
                }
                return try attachments.write(bytes, label: String(record.id))
            }
        }
        try attachments.flush()
        return names
    }

    private func insert(_ record: Record, files: [String]) throws {
        let statement = insertStatement
        defer { statement.reset() }
        statement.bind(record.id, at: 1)
        for (index, value) in record.values.enumerated() {
            if !files.isEmpty, shape.fields[index].type == .blob {
                statement.bindNull(at: Int32(index + 2))
            } else {
                Self.bind(value, to: statement, at: Int32(index + 2))
            }
        }
        for (offset, name) in files.enumerated() {
            statement.bindCopy(name, at: Int32(record.values.count + 2 + offset))
        }
        _ = try statement.step()
    }

    static func bind(_ value: FieldValue, to statement: SQLiteStatement, at index: Int32) {
        switch value {
        case .integer(let number), .date(let number): statement.bind(number, at: index)
        case .double(let number): statement.bind(number, at: index)
        case .bool(let flag): statement.bind(flag, at: index)
        case .text(let text): statement.bindCopy(text, at: index)
        case .blob(let bytes): statement.bindCopy(bytes, at: index)
        }
    }

    /// The record of the statement's current row; a blob kept as a file is read from it.
    private func record(from row: SQLiteStatement) throws -> Record {
        var values: [FieldValue] = []
        values.reserveCapacity(shape.fields.count)
        var fileColumn = Int32(shape.fields.count + 1)
        for (index, field) in shape.fields.enumerated() {
            let column = Int32(index + 1)
            switch field.type {
            case .integer: values.append(.integer(row.int64(at: column)))
            case .date: values.append(.date(row.int64(at: column)))
            case .double: values.append(.double(row.double(at: column)))
            case .bool: values.append(.bool(row.int64(at: column) != 0))
            case .text: values.append(.text(row.text(at: column)))
            case .blob:
                if let attachments {
                    values.append(.blob(try attachments.read(row.text(at: fileColumn))))
                    fileColumn += 1
                } else {
                    values.append(.blob(row.blob(at: column)))
                }
            }
        }
        return Record(id: row.int64(at: 0), values: values)
    }

    func record(id: Int64) throws -> Record? {
        var found: Record?
        try reading {
            defer { selectByID.reset() }
            selectByID.bind(id, at: 1)
            if try selectByID.step() { found = try record(from: selectByID) }
        }
        return found
    }

    func forEachRecord(_ body: (Record) throws -> Void) throws {
        try reading {
            defer { selectAll.reset() }
            while try selectAll.step() { try body(record(from: selectAll)) }
        }
    }

    func update(_ changes: [RecordUpdate]) throws {
        // A replaced blob's new file is written and flushed first; its old file is removed after the commit.
        var replaced: [String] = []
        var newFiles: [Int: String] = [:]
        if let attachments {
            for (position, change) in changes.enumerated() where shape.fields[change.field].type == .blob {
                guard case .blob(let bytes) = change.value else { throw BenchError("a blob field without a blob") }
                newFiles[position] = try attachments.write(bytes, label: String(change.id))
            }
            try attachments.flush()
            replaced = try changes.indices.filter { newFiles[$0] != nil }.compactMap { position in
                try fileName(id: changes[position].id, field: changes[position].field)
            }
        }
        try connection.transaction {
            for (position, change) in changes.enumerated() {
                let statement = updateStatements[change.field]
                defer { statement.reset() }
                if let name = newFiles[position] {
                    statement.bindNull(at: 1)
                    statement.bindCopy(name, at: 2)
                    statement.bind(change.id, at: 3)
                } else {
                    Self.bind(change.value, to: statement, at: 1)
                    statement.bind(change.id, at: 2)
                }
                _ = try statement.step()
            }
        }
        for name in replaced { attachments?.remove(name) }
    }

    /// The file of record `id`'s blob field `field` (`sqlite+files`).
    private func fileName(id: Int64, field: Int) throws -> String? {
        let statement = try connection.prepare(
            "SELECT \"\(shape.fields[field].name)_file\" FROM record WHERE id = ?")
        defer { statement.finalize() }
        statement.bind(id, at: 1)
        return try statement.step() && !statement.isNull(at: 0) ? statement.text(at: 0) : nil
    }

    func page(_ query: RecordPageQuery) throws -> [Record] {
        var page: [Record] = []
        try reading {
            defer { selectPage.reset() }
            Self.bind(query.filter, to: selectPage, at: 1)
            selectPage.bind(Int64(query.limit), at: 2)
            selectPage.bind(Int64(query.offset), at: 3)
            while try selectPage.step() { page.append(try record(from: selectPage)) }
        }
        return page
    }
}
