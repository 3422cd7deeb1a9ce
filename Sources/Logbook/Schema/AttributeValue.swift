import Foundation

/// One attribute value, or `null` for an optional attribute without one.
///
/// This is the currency of the dynamic API (``ManagedObject``, decoded records, string
/// predicates). Ordering (``compare(_:_:)``) puts `null` first, then compares like values;
/// numbers of every kind compare numerically with each other.
public enum AttributeValue: Sendable, Hashable, CustomStringConvertible {
    /// No value.
    case null
    /// A ``AttributeType/string`` or ``AttributeType/url`` value.
    case string(String)
    /// A value of ``AttributeType/integer`` or a narrower integer type (`Int8` … `UInt32`).
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
    /// A ``AttributeType/uint64`` value.
    case unsigned(UInt64)
    /// A ``AttributeType/float`` value.
    case float(Float)
    /// A ``AttributeType/decimal`` value.
    case decimal(Decimal)
    /// An ``AttributeType/array`` or ``AttributeType/set`` value: its elements (a set's in
    /// ascending ``compare(_:_:)`` order, no two equal).
    case array([AttributeValue])
    /// A ``AttributeType/composite`` value: its fields by name, in declaration order. As the
    /// value of an entity's composite attribute it has no fields (they are attributes of their
    /// own) and says only that the composite is present.
    case composite(CompositeValue)

    /// The value's type, or `nil` for `null`: the type of its case (a value of an `Int32`
    /// attribute is an ``AttributeType/integer``, one of a URL a ``AttributeType/string``).
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
        case .unsigned: return .uint64
        case .float: return .float
        case .decimal: return .decimal
        case .array: return .array
        case .composite: return .composite
        }
    }

    /// Whether this is `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The value as a plain Swift value (`String`, `Int64`, `Double`, `Bool`, `Date`, `Data`,
    /// `UUID`, `UInt64`, `Float`, `Decimal`, an `[Any?]` of elements, a `[String: Any?]` of
    /// fields), or `nil` for `null`.
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
        case .unsigned(let v): return v
        case .float(let v): return v
        case .decimal(let v): return v
        case .array(let v): return v.map(\.anyValue)
        case .composite(let v):
            return Dictionary(
                zip(v.fields, v.values.map(\.anyValue)), uniquingKeysWith: { a, _ in a })
        }
    }

    /// Orders two values: `null` first; numbers numerically (a decimal exactly against integers
    /// and decimals; a double's or float's NaN after every number, equal to itself, as indexes
    /// keep it; a decimal's NaN before every number, as Foundation orders it); strings by
    /// Unicode scalar values; `false` before `true`; arrays and composites element by element
    /// (a shorter array first when it is the other's start); values of unrelated types by type.
    public static func compare(_ a: AttributeValue, _ b: AttributeValue) -> ComparisonResult {
        switch (a, b) {
        case (.null, .null): return .orderedSame
        case (.null, _): return .orderedAscending
        case (_, .null): return .orderedDescending
        case (.string(let x), .string(let y)): return order(x, y)
        case (.integer(let x), .integer(let y)): return order(x, y)
        case (.double(let x), .double(let y)): return orderFloating(x, y)
        case (.bool(let x), .bool(let y)): return order(x ? 1 : 0, y ? 1 : 0)
        case (.date(let x), .date(let y)):
            return orderFloating(x.timeIntervalSinceReferenceDate, y.timeIntervalSinceReferenceDate)
        case (.data(let x), .data(let y)):
            return x.lexicographicallyPrecedes(y)
                ? .orderedAscending : (x == y ? .orderedSame : .orderedDescending)
        case (.uuid(let x), .uuid(let y)): return order(x.uuidString, y.uuidString)
        case (.unsigned(let x), .unsigned(let y)): return order(x, y)
        case (.float(let x), .float(let y)): return orderFloating(x, y)
        case (.decimal(let x), .decimal(let y)): return order(x, y)
        case (.array(let x), .array(let y)): return orderElements(x, y)
        case (.composite(let x), .composite(let y)): return orderElements(x.values, y.values)
        default:
            if let numeric = Numeric.compare(a, b) { return numeric }
            return order(a.type?.rawValue ?? 0, b.type?.rawValue ?? 0)
        }
    }

    /// Whether two values are equal, with numbers of different kinds compared numerically.
    public static func equal(_ a: AttributeValue, _ b: AttributeValue) -> Bool {
        switch (a, b) {
        case (.array(let x), .array(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { equal($0, $1) }
        default:
            if a.type != b.type, let numeric = Numeric.compare(a, b) {
                return numeric == .orderedSame
            }
            return a == b
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
        case .unsigned(let v): return String(v)
        case .float(let v): return String(v)
        case .decimal(let v): return v.description
        case .array(let v): return "[" + v.map(\.description).joined(separator: ", ") + "]"
        case .composite(let v): return v.description
        }
    }
}

/// The fields of a composite value (a `Codable` struct stored as structured fields), by name in
/// declaration order. A value type.
public struct CompositeValue: Sendable, Hashable, CustomStringConvertible {
    /// The fields' names (their coding keys).
    public var fields: [String]
    /// Their values, in the same order.
    public var values: [AttributeValue]

    /// A composite with `fields` holding `values` (as many).
    public init(fields: [String], values: [AttributeValue]) {
        self.fields = fields
        self.values = values
    }

    /// The value of the field `name`, or `nil` if there is none.
    public subscript(field name: String) -> AttributeValue? {
        fields.firstIndex(of: name).map { values[$0] }
    }

    /// The marker of a composite attribute whose fields are stored as attributes of their own.
    static let present = CompositeValue(fields: [], values: [])

    public var description: String {
        "{" + zip(fields, values).map { "\($0): \($1)" }.joined(separator: ", ") + "}"
    }
}

@inline(__always)
func order<T: Comparable>(_ x: T, _ y: T) -> ComparisonResult {
    x < y ? .orderedAscending : (x == y ? .orderedSame : .orderedDescending)
}

/// A total order of binary floating-point numbers: NaN after everything, equal to itself.
@inline(__always)
private func orderFloating<T: BinaryFloatingPoint>(_ x: T, _ y: T) -> ComparisonResult {
    if x.isNaN || y.isNaN { return x.isNaN == y.isNaN ? .orderedSame : (x.isNaN ? .orderedDescending : .orderedAscending) }
    return order(x, y)
}

private func orderElements(_ x: [AttributeValue], _ y: [AttributeValue]) -> ComparisonResult {
    for (a, b) in zip(x, y) {
        let result = AttributeValue.compare(a, b)
        if result != .orderedSame { return result }
    }
    return order(x.count, y.count)
}

/// Comparisons of numbers of different kinds.
private enum Numeric {
    /// The order of two numbers of different kinds, or `nil` if either is not a number.
    static func compare(_ a: AttributeValue, _ b: AttributeValue) -> ComparisonResult? {
        switch (a, b) {
        case (.integer(let x), .unsigned(let y)):
            return x < 0 ? .orderedAscending : order(UInt64(x), y)
        case (.unsigned(let x), .integer(let y)):
            return y < 0 ? .orderedDescending : order(x, UInt64(y))
        case (.decimal(let x), _):
            return exactDecimal(b).map { order(x, $0) } ?? binary(a).flatMap { x in
                binary(b).map { order(x, $0) }
            }
        case (_, .decimal(let y)):
            return exactDecimal(a).map { order($0, y) } ?? binary(a).flatMap { x in
                binary(b).map { order(x, $0) }
            }
        default:
            guard let x = binary(a), let y = binary(b) else { return nil }
            return orderFloating(x, y)
        }
    }

    /// An integer as an exact decimal.
    private static func exactDecimal(_ v: AttributeValue) -> Decimal? {
        switch v {
        case .integer(let i): return Decimal(i)
        case .unsigned(let u): return Decimal(u)
        default: return nil
        }
    }

    /// A number as a double (integers beyond 2^53 rounded, as Swift converts them).
    private static func binary(_ v: AttributeValue) -> Double? {
        switch v {
        case .integer(let i): return Double(i)
        case .unsigned(let u): return Double(u)
        case .double(let d): return d
        case .float(let f): return Double(f)
        case .decimal(let d): return Double(d.description) ?? .nan
        default: return nil
        }
    }
}

/// Lets code ask an `Any` whether it holds an `Optional.none`.
protocol OptionalProtocol {
    var isNone: Bool { get }
}

extension Optional: OptionalProtocol {
    var isNone: Bool { self == nil }
}
