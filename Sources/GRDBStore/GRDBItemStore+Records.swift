import Foundation
import GRDB
import PersistenceBench

/// This package's record, not GRDB's `Record` class.
typealias Record = PersistenceBench.Record

/// Records of a shape in `grdb`: the table made by a migration of the shape (`create(table:)`, `create(index:)`),
/// written through cached statements with `StatementArguments` and read as `Row`s, GRDB's API for data whose
/// columns are known only at run time; a date is a `Date`, stored as GRDB stores one (`yyyy-MM-dd HH:mm:ss.SSS`
/// text), a blob a `Data`. A write is one `database.write`, a read one `database.read`, as for items. Every
/// flavor of `grdb` answers the same way: a record type generated per shape is what `grdb+statements` avoids.
extension GRDBItemStore: RecordStore {
    package func records(of shape: RecordShape) throws -> any RecordTable {
        if let table = recordTable, table.shape == shape { return table }
        var migrator = DatabaseMigrator()
        migrator.registerMigration("create record \(shape.fixtureName)") { db in
            try db.create(table: "record") { t in
                t.primaryKey("id", .integer)
                for field in shape.fields { t.column(field.name, GRDBRecordTable.columnType(of: field.type)).notNull() }
            }
            for field in shape.fields where field.indexed {
                try db.create(index: "record_on_\(field.name)", on: "record", columns: [field.name])
            }
            try db.create(
                index: "record_on_\(shape.pageFilter)_\(shape.pageSort)", on: "record",
                columns: [shape.pageFilter, shape.pageSort])
        }
        try migrator.migrate(database)
        let table = GRDBRecordTable(shape: shape, database: database)
        recordTable = table
        return table
    }
}

final class GRDBRecordTable: RecordTable {
    let shape: RecordShape
    let database: any DatabaseWriter
    let columns: String
    let insertSQL: String
    let selectByIDSQL: String
    let selectAllSQL: String
    let pageSQL: String

    init(shape: RecordShape, database: any DatabaseWriter) {
        self.shape = shape
        self.database = database
        let names = ["id"] + shape.fields.map { $0.name.quotedDatabaseIdentifier }
        columns = names.joined(separator: ", ")
        insertSQL = "INSERT INTO record (\(columns)) VALUES (\(names.map { _ in "?" }.joined(separator: ", ")))"
        selectByIDSQL = "SELECT \(columns) FROM record WHERE id = ?"
        selectAllSQL = "SELECT \(columns) FROM record ORDER BY id"
        pageSQL =
            "SELECT \(columns) FROM record WHERE \(shape.pageFilter.quotedDatabaseIdentifier) = ? ORDER BY "
            + "\(shape.pageSort.quotedDatabaseIdentifier), id LIMIT ? OFFSET ?"
    }

    static func columnType(of type: FieldType) -> Database.ColumnType {
        switch type {
        case .integer: .integer
        case .double: .double
        case .bool: .boolean
        case .date: .datetime
        case .text: .text
        case .blob: .blob
        }
    }

    static func databaseValue(_ value: FieldValue) -> any DatabaseValueConvertible {
        switch value {
        case .integer(let number): number
        case .double(let number): number
        case .bool(let flag): flag
        case .date(let milliseconds): Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        case .text(let text): text
        case .blob(let bytes): Data(bytes)
        }
    }

    private func record(from row: Row) -> Record {
        Record(
            id: row[0],
            values: shape.fields.enumerated().map { index, field in
                let column = index + 1
                switch field.type {
                case .integer: return .integer(row[column])
                case .double: return .double(row[column])
                case .bool: return .bool(row[column])
                case .date:
                    let date: Date = row[column]
                    return .date(Int64((date.timeIntervalSince1970 * 1000).rounded()))
                case .text: return .text(row[column])
                case .blob:
                    let data: Data = row[column]
                    return .blob([UInt8](data))
                }
            })
    }

    private func insert(_ record: Record, in db: Database) throws {
        let statement = try db.cachedStatement(sql: insertSQL)
        try statement.execute(arguments: StatementArguments([record.id] + record.values.map(Self.databaseValue)))
    }

    func insert(_ batch: [Record]) throws {
        try database.write { db in
            for record in batch { try insert(record, in: db) }
        }
    }

    func insertDurably(_ record: Record) throws {
        try database.write { db in try insert(record, in: db) }
    }

    func record(id: Int64) throws -> Record? {
        try database.read { db in
            try Row.fetchOne(db.cachedStatement(sql: selectByIDSQL), arguments: [id]).map(record(from:))
        }
    }

    func forEachRecord(_ body: (Record) throws -> Void) throws {
        try database.read { db in
            let rows = try Row.fetchCursor(db.cachedStatement(sql: selectAllSQL))
            while let row = try rows.next() { try body(record(from: row)) }
        }
    }

    func update(_ changes: [RecordUpdate]) throws {
        try database.write { db in
            for change in changes {
                let statement = try db.cachedStatement(
                    sql:
                        "UPDATE record SET \(shape.fields[change.field].name.quotedDatabaseIdentifier) = ? WHERE id = ?"
                )
                try statement.execute(arguments: [Self.databaseValue(change.value), change.id])
            }
        }
    }

    func page(_ query: RecordPageQuery) throws -> [Record] {
        try database.read { db in
            try Row.fetchAll(
                db.cachedStatement(sql: pageSQL),
                arguments: [Self.databaseValue(query.filter), query.limit, query.offset]
            ).map(record(from:))
        }
    }
}
