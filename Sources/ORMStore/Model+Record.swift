import Foundation
import PersistenceBench

extension Model {
    /// A record of a shape: an entity built at run time from the shape, as Core Data builds an
    /// `NSManagedObjectModel` in code, its attributes read and set by position (Core Data's key-value coding).
    ///
    /// Table `ZRECORD`: `id` unique, as `Item`'s, then a column per field.
    final class Record: ManagedObject {
        /// The entity of `shape`: `id`, then each field (a bool an integer, a date a timestamp, a blob binary data,
        /// allowing external storage when `externalStorage`), an index per indexed field and one on the page's
        /// filter, sort and `id`: its whole order, as `Item`'s index ends with its id (the SQL stores' index on
        /// filter and sort ends with the rowid, their tie-break; `id` is not the ORM's `Z_PK`).
        static func entityDescription(of shape: RecordShape, externalStorage: Bool) -> EntityDescription {
            let fields = shape.fields.enumerated().map { position, field in
                var attribute = AttributeDescription(
                    index: position + 1, name: field.name, storage: storage(of: field.type), isOptional: false)
                attribute.allowsExternalStorage = externalStorage && field.type == .blob
                return attribute
            }
            return EntityDescription(
                name: "Record",
                attributes: [AttributeDescription(index: 0, name: "id", storage: .integer, isOptional: false)] + fields,
                uniqueAttributes: ["id"],
                indexes: shape.fields.filter(\.indexed).map { (name: "by_\($0.name)", attributes: [$0.name]) } + [
                    (name: "byPage", attributes: [shape.pageFilter, shape.pageSort, "id"])
                ])
        }

        private static func storage(of type: FieldType) -> AttributeStorage {
            switch type {
            case .integer, .bool: .integer
            case .double: .real
            case .date: .timestamp
            case .text: .text
            case .blob: .binary
            }
        }

        /// Seconds from 1970 to Core Data's reference date, 2001-01-01.
        private static let referenceDate = 978_307_200.0

        /// Inserts an object holding `record`'s values into `context`.
        convenience init(_ record: PersistenceBench.Record, context: ModelContext) {
            self.init(context: context)
            setPrimitiveValue(.integer(record.id), at: 0)
            for (index, value) in record.values.enumerated() { set(value, at: index) }
        }

        /// Sets field `index` (of the shape) to `value`.
        func set(_ value: FieldValue, at index: Int) {
            let stored: AttributeValue =
                switch value {
                case .integer(let number): .integer(number)
                case .double(let number): .real(number)
                case .bool(let flag): .integer(flag ? 1 : 0)
                case .date(let milliseconds): .real(Double(milliseconds) / 1000 - Self.referenceDate)
                case .text(let text): .text(text)
                case .blob(let bytes): .blob(bytes)
                }
            setPrimitiveValue(stored, at: index + 1)
        }

        /// The object's values as the record every store returns (firing the fault if needed).
        func value(of shape: RecordShape) throws -> PersistenceBench.Record {
            guard case .integer(let id) = primitiveValue(at: 0) else { throw BenchError("a record row without an id") }
            return PersistenceBench.Record(
                id: id,
                values: try shape.fields.enumerated().map { index, field in
                    let stored = primitiveValue(at: index + 1)
                    switch (field.type, stored) {
                    case (.integer, .integer(let number)): return .integer(number)
                    case (.bool, .integer(let number)): return .bool(number != 0)
                    case (.double, .real(let number)): return .double(number)
                    case (.date, .real(let seconds)):
                        return .date(Int64(((seconds + Self.referenceDate) * 1000).rounded()))
                    case (.text, .text(let text)): return .text(text)
                    case (.blob, .blob(let bytes)): return .blob(bytes)
                    default: throw BenchError("record \(id): field \(field.name) holds \(stored)")
                    }
                })
        }
    }
}
