/// The bytes of a record in a store that keeps records as bytes of its own layout (`lmdb`, `packed`), driven by
/// the shape: each value in field order; integers, dates and doubles as 8 little-endian bytes, a bool as one byte,
/// a text or a blob as its 4-byte length then its bytes.
///
/// The id is the store's key, not in the bytes.
package struct RecordCodec: Sendable {
    package let shape: RecordShape

    package init(shape: RecordShape) { self.shape = shape }

    /// The encoded size of `record`'s values.
    package func size(of record: Record) -> Int {
        record.values.reduce(0) { total, value in
            switch value {
            case .text, .blob: total + 4 + value.byteCount
            default: total + value.byteCount
            }
        }
    }

    /// Appends `record`'s values to `bytes` (which grows as arrays do: a caller appending many records reserves
    /// their total, as `encode(_:)` reserves one's).
    package func encode(_ record: Record, into bytes: inout [UInt8]) {
        for value in record.values {
            switch value {
            case .integer(let number), .date(let number): append(UInt64(bitPattern: number), 8, to: &bytes)
            case .double(let number): append(number.bitPattern, 8, to: &bytes)
            case .bool(let flag): bytes.append(flag ? 1 : 0)
            case .text(let text):
                append(UInt64(text.utf8.count), 4, to: &bytes)
                bytes.append(contentsOf: text.utf8)
            case .blob(let blob):
                append(UInt64(blob.count), 4, to: &bytes)
                bytes.append(contentsOf: blob)
            }
        }
    }

    package func encode(_ record: Record) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size(of: record))
        encode(record, into: &bytes)
        return bytes
    }

    /// The record `id` whose values are `bytes`.
    ///
    /// - Throws: `BenchError` if the bytes end before the shape's last value: a damaged or foreign value.
    package func decode(id: Int64, from bytes: UnsafeRawBufferPointer) throws -> Record {
        try decode(id: id, from: bytes, partial: false)
    }

    /// `decode`, and with `partial`, bytes may follow the shape's last value.
    private func decode(id: Int64, from bytes: UnsafeRawBufferPointer, partial: Bool) throws -> Record {
        var offset = 0
        func take(_ count: Int) throws -> Int {
            guard offset + count <= bytes.count else {
                throw BenchError("record \(id): its bytes end before its \(shape.name) fields do")
            }
            defer { offset += count }
            return offset
        }
        func word(_ width: Int) throws -> UInt64 {
            let start = try take(width)
            var value: UInt64 = 0
            for index in 0..<width { value |= UInt64(bytes[start + index]) << (8 * index) }
            return value
        }
        var values: [FieldValue] = []
        values.reserveCapacity(shape.fields.count)
        for field in shape.fields {
            switch field.type {
            case .integer: values.append(.integer(Int64(bitPattern: try word(8))))
            case .date: values.append(.date(Int64(bitPattern: try word(8))))
            case .double: values.append(.double(Double(bitPattern: try word(8))))
            case .bool: values.append(.bool(bytes[try take(1)] != 0))
            case .text:
                let length = Int(try word(4))
                let start = try take(length)
                values.append(
                    .text(
                        String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<start + length]), as: UTF8.self)
                    ))
            case .blob:
                let length = Int(try word(4))
                let start = try take(length)
                values.append(.blob(Array(bytes[start..<start + length])))
            }
        }
        guard partial || offset == bytes.count else {
            throw BenchError("record \(id): \(bytes.count - offset) bytes after its \(shape.name) fields")
        }
        return Record(id: id, values: values)
    }

    /// The value of field `field` in `bytes`, the fields before it skipped, not decoded.
    package func value(of field: Int, in bytes: UnsafeRawBufferPointer, id: Int64) throws -> FieldValue {
        var offset = 0
        for index in 0..<field {
            switch shape.fields[index].type {
            case .integer, .date, .double: offset += 8
            case .bool: offset += 1
            case .text, .blob:
                guard offset + 4 <= bytes.count else { throw BenchError("record \(id): its bytes end early") }
                var length = 0
                for byte in 0..<4 { length |= Int(bytes[offset + byte]) << (8 * byte) }
                offset += 4 + length
            }
        }
        guard offset <= bytes.count else { throw BenchError("record \(id): its bytes end early") }
        let rest = UnsafeRawBufferPointer(rebasing: bytes[offset...])
        // The field, decoded as the first of a shape of it alone.
        let single = RecordCodec(
            shape: RecordShape(
                name: shape.name, fields: [shape.fields[field]], pageFilter: shape.pageFilter,
                pageSort: shape.pageSort))
        var values = try single.decode(id: id, from: rest, partial: true).values
        return values.removeFirst()
    }

    /// A key whose byte-wise order is the page's order: the filter value, the sort value, then the id, each in an
    /// order-preserving form (integers with the sign bit flipped, big-endian; doubles by their ordered bits; texts
    /// as their bytes and a 0 terminator, which no generated text contains).
    package func pageKey(of record: Record) -> [UInt8] {
        var key: [UInt8] = []
        Self.appendOrdered(record.values[shape.filterIndex], to: &key)
        Self.appendOrdered(record.values[shape.sortIndex], to: &key)
        Self.appendOrdered(.integer(record.id), to: &key)
        return key
    }

    /// The prefix every page key of records whose filter field is `filter` starts with.
    package func pagePrefix(filter: FieldValue) -> [UInt8] {
        var key: [UInt8] = []
        Self.appendOrdered(filter, to: &key)
        return key
    }

    private static func appendOrdered(_ value: FieldValue, to key: inout [UInt8]) {
        func bigEndian(_ word: UInt64) {
            for shift in stride(from: 56, through: 0, by: -8) {
                key.append(UInt8(truncatingIfNeeded: word >> UInt64(shift)))
            }
        }
        switch value {
        case .integer(let number), .date(let number): bigEndian(UInt64(bitPattern: number) ^ (1 << 63))
        case .double(let number):
            let bits = number.bitPattern
            bigEndian(bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63))
        case .bool(let flag): key.append(flag ? 1 : 0)
        case .text(let text):
            key.append(contentsOf: text.utf8)
            key.append(0)
        case .blob: preconditionFailure("a page never sorts by a blob (RecordShape.validate)")
        }
    }

    private func append(_ value: UInt64, _ width: Int, to bytes: inout [UInt8]) {
        for index in 0..<width { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(index)))) }
    }
}
