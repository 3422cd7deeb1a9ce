import Foundation

/// A Swift type an ``Attribute`` can hold: `String`, `Int`, `Int64`, `Double`, `Bool`, `Date`,
/// `Data`, `UUID`, and an `Optional` of any of them.
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
