import Foundation

/// The type of an attribute's values, as stored (FORMAT.md Part 2, "Values").
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

    public var description: String {
        switch self {
        case .string: return "String"
        case .integer: return "Int64"
        case .double: return "Double"
        case .bool: return "Bool"
        case .date: return "Date"
        case .data: return "Data"
        case .uuid: return "UUID"
        }
    }
}

/// One attribute value, or `null` for an optional attribute without one.
///
/// This is the currency of the dynamic API (``ManagedObject``, decoded records, string
/// predicates). Ordering (``compare(_:_:)``) puts `null` first, then compares like values;
/// integers and doubles compare numerically with each other.
public enum AttributeValue: Sendable, Hashable, CustomStringConvertible {
    /// No value.
    case null
    /// A ``AttributeType/string`` value.
    case string(String)
    /// An ``AttributeType/integer`` value.
    case integer(Int64)
    /// A ``AttributeType/double`` value.
    case double(Double)
    /// A ``AttributeType/bool`` value.
    case bool(Bool)
    /// A ``AttributeType/date`` value.
    case date(Date)
    /// A ``AttributeType/data`` value.
    case data(Data)
    /// A ``AttributeType/uuid`` value.
    case uuid(UUID)

    /// The value's type, or `nil` for `null`.
    public var type: AttributeType? {
        switch self {
        case .null: return nil
        case .string: return .string
        case .integer: return .integer
        case .double: return .double
        case .bool: return .bool
        case .date: return .date
        case .data: return .data
        case .uuid: return .uuid
        }
    }

    /// Whether this is `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The value as a plain Swift value (`String`, `Int64`, `Double`, `Bool`, `Date`, `Data`,
    /// `UUID`), or `nil` for `null`.
    public var anyValue: Any? {
        switch self {
        case .null: return nil
        case .string(let v): return v
        case .integer(let v): return v
        case .double(let v): return v
        case .bool(let v): return v
        case .date(let v): return v
        case .data(let v): return v
        case .uuid(let v): return v
        }
    }

    /// Converts a plain Swift value to a value of `type`: integers of any width, `Double`,
    /// `Float`, `String`, `Bool`, `Date`, `Data`, `UUID`, `AttributeValue`, or `nil`.
    /// Integers convert to doubles; nothing else converts.
    /// - Returns: `nil` if `value` cannot be a value of `type`.
    public static func converting(_ value: Any?, to type: AttributeType) -> AttributeValue? {
        guard let value else { return .null }
        if let direct = value as? AttributeValue {
            if direct.isNull || direct.type == type { return direct }
            if case .integer(let i) = direct, type == .double { return .double(Double(i)) }
            return nil
        }
        if let optional = value as? any OptionalProtocol, optional.isNone { return .null }
        switch type {
        case .string: return (value as? String).map { .string($0) }
        case .integer:
            if let v = value as? any BinaryInteger, let i = Int64(exactly: v) { return .integer(i) }
            return nil
        case .double:
            if let v = value as? Double { return .double(v) }
            if let v = value as? Float { return .double(Double(v)) }
            if let v = value as? any BinaryInteger, let d = Double(exactly: v) { return .double(d) }
            return nil
        case .bool: return (value as? Bool).map { .bool($0) }
        case .date: return (value as? Date).map { .date($0) }
        case .data:
            if let v = value as? Data { return .data(v) }
            if let v = value as? [UInt8] { return .data(Data(v)) }
            return nil
        case .uuid: return (value as? UUID).map { .uuid($0) }
        }
    }

    /// Orders two values: `null` first; numbers numerically (`-0` as `0`, and every NaN the
    /// same, after `+infinity`, as the indexes order them: a total order, so a sort is one);
    /// strings by Unicode scalar values; `false` before `true`; values of unrelated types by type.
    public static func compare(_ a: AttributeValue, _ b: AttributeValue) -> ComparisonResult {
        switch (a, b) {
        case (.null, .null): return .orderedSame
        case (.null, _): return .orderedAscending
        case (_, .null): return .orderedDescending
        case (.string(let x), .string(let y)): return order(x, y)
        case (.integer(let x), .integer(let y)): return order(x, y)
        case (.double(let x), .double(let y)): return orderNumbers(x, y)
        case (.integer(let x), .double(let y)): return orderNumbers(Double(x), y)
        case (.double(let x), .integer(let y)): return orderNumbers(x, Double(y))
        case (.bool(let x), .bool(let y)): return order(x ? 1 : 0, y ? 1 : 0)
        case (.date(let x), .date(let y)):
            return orderNumbers(x.timeIntervalSinceReferenceDate, y.timeIntervalSinceReferenceDate)
        case (.data(let x), .data(let y)):
            return x.lexicographicallyPrecedes(y)
                ? .orderedAscending : (x == y ? .orderedSame : .orderedDescending)
        case (.uuid(let x), .uuid(let y)): return order(x.uuidString, y.uuidString)
        default: return order(a.type?.rawValue ?? 0, b.type?.rawValue ?? 0)
        }
    }

    /// Whether two values are equal, with integers and doubles compared numerically.
    public static func equal(_ a: AttributeValue, _ b: AttributeValue) -> Bool {
        switch (a, b) {
        case (.integer(let x), .double(let y)): return Double(x) == y
        case (.double(let x), .integer(let y)): return x == Double(y)
        default: return a == b
        }
    }

    public var description: String {
        switch self {
        case .null: return "nil"
        case .string(let v): return "\"\(v)\""
        case .integer(let v): return String(v)
        case .double(let v): return String(v)
        case .bool(let v): return String(v)
        case .date(let v): return v.formatted(.iso8601)
        case .data(let v): return "<\(v.count) bytes>"
        case .uuid(let v): return v.uuidString
        }
    }
}

@inline(__always)
private func order<T: Comparable>(_ x: T, _ y: T) -> ComparisonResult {
    x < y ? .orderedAscending : (x == y ? .orderedSame : .orderedDescending)
}

/// Doubles in the indexes' order: numerically (so `-0` and `0` are the same), every NaN the same
/// and after everything else. (`<` alone is no order with a NaN: a sort of values holding one
/// came out in any order.)
@inline(__always)
private func orderNumbers(_ x: Double, _ y: Double) -> ComparisonResult {
    guard x.isNaN || y.isNaN else { return order(x, y) }
    return x.isNaN ? (y.isNaN ? .orderedSame : .orderedDescending) : .orderedAscending
}

/// Lets code ask an `Any` whether it holds an `Optional.none`.
protocol OptionalProtocol {
    var isNone: Bool { get }
}

extension Optional: OptionalProtocol {
    var isNone: Bool { self == nil }
}
