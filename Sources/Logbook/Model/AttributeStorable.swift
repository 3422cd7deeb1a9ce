import Foundation

/// A Swift type stored as one value of a scalar ``AttributeType``: `String`, `Int`, `Int8` …
/// `Int64`, `UInt8` … `UInt64`, `Double`, `Float`, `Decimal`, `Bool`, `Date`, `Data`, `UUID`,
/// `URL`, and an `Optional` of any of them.
///
/// An ``Attribute`` holds these and more without any conformance: enums, `Codable` structs,
/// arrays and sets. Conform a type of your own only to store it as one of the scalar types
/// (its ``attributeType`` must not be an array, a set or a composite).
public protocol AttributeStorable {
    /// The stored type.
    static var attributeType: AttributeType { get }
    /// Whether `nil` is a value (true only for `Optional`).
    static var isOptionalAttribute: Bool { get }
    /// The value in the dynamic currency; `null` for `nil`.
    var attributeValue: AttributeValue { get }
    /// The Swift value of `attributeValue`, or `nil` if it has another type (or is `null` for a
    /// non-optional type).
    init?(attributeValue: AttributeValue)
}

extension AttributeStorable {
    /// `false`: only `Optional` holds `nil`.
    public static var isOptionalAttribute: Bool { false }
}

extension String: AttributeStorable {
    public static var attributeType: AttributeType { .string }
    public var attributeValue: AttributeValue { .string(self) }
    public init?(attributeValue: AttributeValue) {
        guard case .string(let v) = attributeValue else { return nil }
        self = v
    }
}

extension Int64: AttributeStorable {
    public static var attributeType: AttributeType { .integer }
    public var attributeValue: AttributeValue { .integer(self) }
    public init?(attributeValue: AttributeValue) {
        guard case .integer(let v) = attributeValue else { return nil }
        self = v
    }
}

extension Int: AttributeStorable {
    public static var attributeType: AttributeType { .integer }
    public var attributeValue: AttributeValue { .integer(Int64(self)) }
    public init?(attributeValue: AttributeValue) {
        guard case .integer(let v) = attributeValue, let i = Int(exactly: v) else { return nil }
        self = i
    }
}

extension Double: AttributeStorable {
    public static var attributeType: AttributeType { .double }
    public var attributeValue: AttributeValue { .double(self) }
    public init?(attributeValue: AttributeValue) {
        switch attributeValue {
        case .double(let v): self = v
        case .integer(let v): self = Double(v)
        default: return nil
        }
    }
}

extension Bool: AttributeStorable {
    public static var attributeType: AttributeType { .bool }
    public var attributeValue: AttributeValue { .bool(self) }
    public init?(attributeValue: AttributeValue) {
        guard case .bool(let v) = attributeValue else { return nil }
        self = v
    }
}

extension Date: AttributeStorable {
    public static var attributeType: AttributeType { .date }
    public var attributeValue: AttributeValue { .date(self) }
    public init?(attributeValue: AttributeValue) {
        guard case .date(let v) = attributeValue else { return nil }
        self = v
    }
}

extension Data: AttributeStorable {
    public static var attributeType: AttributeType { .data }
    public var attributeValue: AttributeValue { .data(self) }
    public init?(attributeValue: AttributeValue) {
        guard case .data(let v) = attributeValue else { return nil }
        self = v
    }
}

extension UUID: AttributeStorable {
    public static var attributeType: AttributeType { .uuid }
    public var attributeValue: AttributeValue { .uuid(self) }
    public init?(attributeValue: AttributeValue) {
        guard case .uuid(let v) = attributeValue else { return nil }
        self = v
    }
}

/// Stored as an ``AttributeValue/integer(_:)`` in its range.
extension Int8: AttributeStorable {
    public static var attributeType: AttributeType { .int8 }
    public var attributeValue: AttributeValue { .integer(Int64(self)) }
    public init?(attributeValue: AttributeValue) {
        guard case .integer(let v) = attributeValue, let i = Int8(exactly: v) else { return nil }
        self = i
    }
}

/// Stored as an ``AttributeValue/integer(_:)`` in its range.
extension Int16: AttributeStorable {
    public static var attributeType: AttributeType { .int16 }
    public var attributeValue: AttributeValue { .integer(Int64(self)) }
    public init?(attributeValue: AttributeValue) {
        guard case .integer(let v) = attributeValue, let i = Int16(exactly: v) else { return nil }
        self = i
    }
}

/// Stored as an ``AttributeValue/integer(_:)`` in its range.
extension Int32: AttributeStorable {
    public static var attributeType: AttributeType { .int32 }
    public var attributeValue: AttributeValue { .integer(Int64(self)) }
    public init?(attributeValue: AttributeValue) {
        guard case .integer(let v) = attributeValue, let i = Int32(exactly: v) else { return nil }
        self = i
    }
}

/// Stored as an ``AttributeValue/integer(_:)`` in its range.
extension UInt8: AttributeStorable {
    public static var attributeType: AttributeType { .uint8 }
    public var attributeValue: AttributeValue { .integer(Int64(self)) }
    public init?(attributeValue: AttributeValue) {
        guard case .integer(let v) = attributeValue, let i = UInt8(exactly: v) else { return nil }
        self = i
    }
}

/// Stored as an ``AttributeValue/integer(_:)`` in its range.
extension UInt16: AttributeStorable {
    public static var attributeType: AttributeType { .uint16 }
    public var attributeValue: AttributeValue { .integer(Int64(self)) }
    public init?(attributeValue: AttributeValue) {
        guard case .integer(let v) = attributeValue, let i = UInt16(exactly: v) else { return nil }
        self = i
    }
}

/// Stored as an ``AttributeValue/integer(_:)`` in its range.
extension UInt32: AttributeStorable {
    public static var attributeType: AttributeType { .uint32 }
    public var attributeValue: AttributeValue { .integer(Int64(self)) }
    public init?(attributeValue: AttributeValue) {
        guard case .integer(let v) = attributeValue, let i = UInt32(exactly: v) else { return nil }
        self = i
    }
}

/// Its whole range: order and equality hold past `Int64.max` (``AttributeValue/unsigned(_:)``).
extension UInt64: AttributeStorable {
    public static var attributeType: AttributeType { .uint64 }
    public var attributeValue: AttributeValue { .unsigned(self) }
    public init?(attributeValue: AttributeValue) {
        switch attributeValue {
        case .unsigned(let v): self = v
        case .integer(let v):
            guard let u = UInt64(exactly: v) else { return nil }
            self = u
        default: return nil
        }
    }
}

extension Float: AttributeStorable {
    public static var attributeType: AttributeType { .float }
    public var attributeValue: AttributeValue { .float(self) }
    public init?(attributeValue: AttributeValue) {
        guard case .float(let v) = attributeValue else { return nil }
        self = v
    }
}

/// Stored exactly, and compared and sorted as a decimal (never through `Double`).
extension Decimal: AttributeStorable {
    public static var attributeType: AttributeType { .decimal }
    public var attributeValue: AttributeValue { .decimal(self) }
    public init?(attributeValue: AttributeValue) {
        switch attributeValue {
        case .decimal(let v): self = v
        case .integer(let v): self = Decimal(v)
        default: return nil
        }
    }
}

/// Stored as its `absoluteString`.
extension URL: AttributeStorable {
    public static var attributeType: AttributeType { .url }
    public var attributeValue: AttributeValue { .string(absoluteString) }
    public init?(attributeValue: AttributeValue) {
        guard case .string(let v) = attributeValue, let url = URL(string: v) else { return nil }
        self = url
    }
}

extension Optional: AttributeStorable where Wrapped: AttributeStorable {
    public static var attributeType: AttributeType { Wrapped.attributeType }
    public static var isOptionalAttribute: Bool { true }
    public var attributeValue: AttributeValue { self?.attributeValue ?? .null }
    public init?(attributeValue: AttributeValue) {
        if attributeValue.isNull {
            self = .none
        } else if let v = Wrapped(attributeValue: attributeValue) {
            self = .some(v)
        } else {
            return nil
        }
    }
}
