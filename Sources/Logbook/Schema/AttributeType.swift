import Foundation

/// The type of an attribute's values, as stored (FORMAT.md Part 2, "Values"). The raw value is
/// the type's code in schema records.
///
/// An enum (`RawRepresentable`) is stored as its raw value's type, a `Codable` struct as a
/// ``composite`` with one attribute per field; ``AttributeDescription/typeName`` keeps the name
/// they were declared with.
public enum AttributeType: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// UTF-8 text.
    case string = 1
    /// A signed 64-bit integer (Swift `Int` and `Int64` both store as this).
    case integer = 2
    /// A 64-bit IEEE 754 number.
    case double = 3
    /// `true` or `false`.
    case bool = 4
    /// A point in time, stored as seconds since 2001-01-01 00:00:00 UTC (a `Double`).
    case date = 5
    /// Raw bytes.
    case data = 6
    /// A 16-byte UUID.
    case uuid = 7
    /// `Int8`: an ``AttributeValue/integer(_:)`` from -128 to 127.
    case int8 = 8
    /// `Int16`: an ``AttributeValue/integer(_:)`` in its range.
    case int16 = 9
    /// `Int32`: an ``AttributeValue/integer(_:)`` in its range.
    case int32 = 10
    /// `UInt8`: an ``AttributeValue/integer(_:)`` from 0 to 255.
    case uint8 = 11
    /// `UInt16`: an ``AttributeValue/integer(_:)`` in its range.
    case uint16 = 12
    /// `UInt32`: an ``AttributeValue/integer(_:)`` in its range.
    case uint32 = 13
    /// `UInt64`, its whole range: an ``AttributeValue/unsigned(_:)``.
    case uint64 = 14
    /// A 32-bit IEEE 754 number: an ``AttributeValue/float(_:)``.
    case float = 15
    /// A Foundation `Decimal`, stored exactly and compared as a decimal: an
    /// ``AttributeValue/decimal(_:)``.
    case decimal = 16
    /// A `URL`, stored as the text of its `absoluteString` (an ``AttributeValue/string(_:)``).
    case url = 17
    /// An ordered list of values of the one type ``AttributeDescription/members`` describes:
    /// an ``AttributeValue/array(_:)``.
    case array = 18
    /// A set of values of the one type ``AttributeDescription/members`` describes: an
    /// ``AttributeValue/array(_:)`` whose elements are in ascending order, no two equal.
    case set = 19
    /// A `Codable` value stored as structured fields. As an attribute of an entity it marks the
    /// composite (present or `nil`) and its fields are the attributes that follow it under
    /// dotted names (`address.city`); inside an array or set it is a value whose fields
    /// ``AttributeDescription/members`` lists (an ``AttributeValue/composite(_:)``).
    case composite = 20

    public var description: String {
        switch self {
        case .string: return "String"
        case .integer: return "Int64"
        case .double: return "Double"
        case .bool: return "Bool"
        case .date: return "Date"
        case .data: return "Data"
        case .uuid: return "UUID"
        case .int8: return "Int8"
        case .int16: return "Int16"
        case .int32: return "Int32"
        case .uint8: return "UInt8"
        case .uint16: return "UInt16"
        case .uint32: return "UInt32"
        case .uint64: return "UInt64"
        case .float: return "Float"
        case .decimal: return "Decimal"
        case .url: return "URL"
        case .array: return "Array"
        case .set: return "Set"
        case .composite: return "Composite"
        }
    }

    /// The type whose ``description`` is `name`, or `nil`.
    public init?(named name: String) {
        guard let found = Self.allCases.first(where: { $0.description == name }) else {
            return nil
        }
        self = found
    }

    /// The values of a type stored as ``AttributeValue/integer(_:)`` (a zigzag varint): every
    /// signed and unsigned width but `UInt64`, with its range.
    var integerRange: ClosedRange<Int64>? {
        switch self {
        case .integer: return Int64.min...Int64.max
        case .int8: return Int64(Int8.min)...Int64(Int8.max)
        case .int16: return Int64(Int16.min)...Int64(Int16.max)
        case .int32: return Int64(Int32.min)...Int64(Int32.max)
        case .uint8: return 0...Int64(UInt8.max)
        case .uint16: return 0...Int64(UInt16.max)
        case .uint32: return 0...Int64(UInt32.max)
        default: return nil
        }
    }

    /// Whether values of the type are stored as ``AttributeValue/integer(_:)``.
    var isInteger: Bool { integerRange != nil }

    /// Whether values are numbers (compared with each other numerically).
    var isNumeric: Bool {
        isInteger || self == .uint64 || self == .double || self == .float || self == .decimal
    }

    /// Whether values are ``AttributeValue/string(_:)``.
    var isText: Bool { self == .string || self == .url }

    /// An array or a set.
    var isCollection: Bool { self == .array || self == .set }
}
