import Foundation
import PersistenceBench

/// One stored value of a managed object, as its column holds it: the object's backing data and the row cache
/// both keep rows as arrays of these.
public enum AttributeValue: Equatable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

/// How an attribute is stored: the SQLite column type Core Data declares for it.
public enum AttributeStorage: Sendable {
    /// Int64 and Bool: `INTEGER`.
    case integer
    /// Double: `FLOAT`.
    case real
    /// Date, as seconds since 2001-01-01 (Core Data's reference date): `TIMESTAMP`.
    case timestamp
    /// String: `VARCHAR`.
    case text
    /// Binary data (arrays of addresses, stored as SwiftData stores a composite value): `BLOB`.
    case binary

    var columnType: String {
        switch self {
        case .integer: "INTEGER"
        case .real: "FLOAT"
        case .timestamp: "TIMESTAMP"
        case .text: "VARCHAR"
        case .binary: "BLOB"
        }
    }
}

/// A Swift type an attribute can have, and its conversion to and from the stored value.
public protocol AttributeType {
    static var storage: AttributeStorage { get }
    static var isOptional: Bool { get }
    /// The value of a stored value: a column of the wrong type, which a store of this model never holds, reads
    /// as the type's zero.
    init(stored: AttributeValue)
    var stored: AttributeValue { get }
}

extension AttributeType {
    public static var isOptional: Bool { false }
}

extension Int64: AttributeType {
    public static var storage: AttributeStorage { .integer }
    @inlinable public init(stored: AttributeValue) {
        if case .integer(let value) = stored { self = value } else { self = 0 }
    }
    @inlinable public var stored: AttributeValue { .integer(self) }
}

extension Bool: AttributeType {
    public static var storage: AttributeStorage { .integer }
    @inlinable public init(stored: AttributeValue) {
        if case .integer(let value) = stored { self = value != 0 } else { self = false }
    }
    @inlinable public var stored: AttributeValue { .integer(self ? 1 : 0) }
}

extension Double: AttributeType {
    public static var storage: AttributeStorage { .real }
    @inlinable public init(stored: AttributeValue) {
        switch stored {
        case .real(let value): self = value
        case .integer(let value): self = Double(value)
        default: self = 0
        }
    }
    @inlinable public var stored: AttributeValue { .real(self) }
}

extension String: AttributeType {
    public static var storage: AttributeStorage { .text }
    @inlinable public init(stored: AttributeValue) {
        if case .text(let value) = stored { self = value } else { self = "" }
    }
    @inlinable public var stored: AttributeValue { .text(self) }
}

extension Date: AttributeType {
    public static var storage: AttributeStorage { .timestamp }
    /// Foundation keeps a `Date` as seconds since 2001-01-01, so this round-trips exactly.
    @inlinable public init(stored: AttributeValue) {
        self.init(timeIntervalSinceReferenceDate: Double(stored: stored))
    }
    @inlinable public var stored: AttributeValue { .real(timeIntervalSinceReferenceDate) }
}

/// An array of 64-bit values (a call stack's addresses): 8 little-endian bytes each, in one `BLOB`.
extension Array: AttributeType where Element == UInt64 {
    public static var storage: AttributeStorage { .binary }
    public init(stored: AttributeValue) {
        if case .blob(let bytes) = stored { self = bytes.withUnsafeBytes { StackBytes.decode($0) } } else { self = [] }
    }
    public var stored: AttributeValue { .blob(StackBytes.encode(self)) }
}

extension Optional: AttributeType where Wrapped: AttributeType {
    public static var storage: AttributeStorage { Wrapped.storage }
    public static var isOptional: Bool { true }
    @inlinable public init(stored: AttributeValue) {
        if case .null = stored { self = nil } else { self = Wrapped(stored: stored) }
    }
    @inlinable public var stored: AttributeValue { self?.stored ?? .null }
}
