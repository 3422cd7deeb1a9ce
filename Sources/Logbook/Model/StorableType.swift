import Foundation

/// How the values of one Swift type are stored: what the schema records for it, and the
/// conversions between a Swift value and its ``AttributeValue``. Found once per type by
/// ``StorableTypes`` and kept; immutable.
final class StorableType: @unchecked Sendable {  // immutable; its closures capture only types
    /// What kind of type it is.
    indirect enum Kind {
        /// A type conforming to ``AttributeStorable`` (String, the integers, …).
        case scalar
        /// An `Optional` of the wrapped type.
        case optional(StorableType)
        /// An `Array` (or a `Set`) of the element type.
        case collection(StorableType, isSet: Bool)
        /// An enum (any `RawRepresentable`), stored as its raw value.
        case raw(StorableType)
        /// A `Codable` type stored as its fields (or, for a wrapper that encodes one single
        /// value, as that value).
        case composite(CompositeLayout)
    }

    /// A composite's fields.
    final class CompositeLayout: @unchecked Sendable {  // immutable
        /// The fields in declaration (decoding) order; `type` is never an optional.
        let fields: [(key: String, type: StorableType, optional: Bool)]
        let index: [String: Int]
        /// The value of a type that encodes itself as one single value; then `fields` is empty.
        let single: StorableType?

        init(fields: [(key: String, type: StorableType, optional: Bool)], single: StorableType?) {
            self.fields = fields
            self.single = single
            index = Dictionary(
                fields.enumerated().map { ($1.key, $0) }, uniquingKeysWith: { a, _ in a })
        }
    }

    let swiftType: Any.Type
    let kind: Kind
    /// The attribute the type alone makes (named `element`, no default or options).
    let description: AttributeDescription
    /// A value of the type to stand in where one is needed before any is known, if there is one.
    let placeholder: Any?
    /// For an enum, its cases when they can be listed (`CaseIterable`, or an enum without
    /// payloads), in declaration order.
    let cases: [Any]?
    /// For an enum without payloads, how to read and write it in place.
    let enumLayout: EnumLayout?
    private let toValue: (Any) -> AttributeValue?
    private let fromValue: (AttributeValue) -> Any?

    init(
        _ swiftType: Any.Type, kind: Kind, description: AttributeDescription, placeholder: Any?,
        cases: [Any]? = nil, enumLayout: EnumLayout? = nil,
        toValue: @escaping (Any) -> AttributeValue?,
        fromValue: @escaping (AttributeValue) -> Any?
    ) {
        self.swiftType = swiftType
        self.kind = kind
        self.description = description
        self.placeholder = placeholder
        self.cases = cases
        self.enumLayout = enumLayout
        self.toValue = toValue
        self.fromValue = fromValue
    }

    /// The stored value of `value` (which must be of ``swiftType``): for a composite, its fields'
    /// values (``CompositeValue``); `nil` if the value does not convert (a custom `Encodable`
    /// conformance that writes other fields than it reads).
    func attributeValue(of value: Any) -> AttributeValue? { toValue(value) }

    /// The Swift value of a stored value, or `nil` if it is not one of this type's.
    func value(from stored: AttributeValue) -> Any? { fromValue(stored) }

    /// Whether `nil` is a value.
    var isOptional: Bool {
        if case .optional = kind { return true }
        return false
    }

    /// The type without its `Optional`.
    var unwrapped: StorableType {
        if case .optional(let wrapped) = kind { return wrapped }
        return self
    }

    /// For a composite stored as fields (not a wrapper of one value), its layout.
    var fieldLayout: CompositeLayout? {
        guard case .composite(let layout) = unwrapped.kind, layout.single == nil else { return nil }
        return layout
    }

    // MARK: Flattening (an entity's composite attribute)

    /// The attributes an entity's composite attribute of this type called `name` stores after
    /// its own: one per field, named `name.field`, a nested composite's marker followed by its
    /// fields; a field is optional when it or a composite around it is.
    func flatFields(prefix name: String, optional: Bool) -> [AttributeDescription] {
        guard let layout = fieldLayout else { return [] }
        var result: [AttributeDescription] = []
        for field in layout.fields {
            let fieldName = name + "." + field.key
            let isOptional = optional || field.optional
            if field.type.fieldLayout != nil {
                result.append(
                    AttributeDescription(
                        fieldName, .composite, optional: isOptional,
                        typeName: field.type.description.typeName))
                result += field.type.flatFields(prefix: fieldName, optional: isOptional)
            } else {
                var attribute = field.type.description
                attribute.name = fieldName
                attribute.isOptional = isOptional
                result.append(attribute)
            }
        }
        return result
    }

    /// The values of ``flatFields(prefix:optional:)`` for a composite value (`null` for all
    /// when it is `null`).
    func flatten(_ value: AttributeValue) -> [AttributeValue] {
        guard let layout = fieldLayout else { return [] }
        var result: [AttributeValue] = []
        let values: [AttributeValue]
        if case .composite(let composite) = value, composite.values.count == layout.fields.count {
            values = composite.values
        } else {
            values = Array(repeating: .null, count: layout.fields.count)
        }
        for (field, v) in zip(layout.fields, values) {
            if field.type.fieldLayout != nil {
                result.append(v.isNull ? .null : .composite(.present))
                result += field.type.flatten(v)
            } else {
                result.append(v)
            }
        }
        return result
    }

    /// The Swift type of each value ``flatten(_:)`` gives, as a key path reaching it sees it:
    /// optional when the field or a composite around it is.
    func flatSwiftTypes(optional: Bool) -> [Any.Type] {
        guard let layout = fieldLayout else { return [] }
        var result: [Any.Type] = []
        for field in layout.fields {
            let isOptional = optional || field.optional
            let type =
                isOptional
                ? StorableTypes.optionalType(of: field.type.swiftType)
                : field.type.swiftType
            result.append(type)
            if field.type.fieldLayout != nil {
                result += field.type.flatSwiftTypes(optional: isOptional)
            }
        }
        return result
    }

    /// How many values ``flatten(_:)`` gives.
    var flatCount: Int {
        guard let layout = fieldLayout else { return 0 }
        return layout.fields.reduce(0) {
            $0 + ($1.type.fieldLayout != nil ? 1 + $1.type.flatCount : 1)
        }
    }

    /// The composite value whose ``flatten(_:)`` is `flat` (read from `flat[start...]`), with
    /// `start` moved past it.
    func unflatten(_ flat: [AttributeValue], from start: inout Int) -> AttributeValue {
        guard let layout = fieldLayout else { return .null }
        var values: [AttributeValue] = []
        for field in layout.fields {
            if field.type.fieldLayout != nil {
                let marker = start < flat.count ? flat[start] : .null
                start += 1
                let inner = field.type.unflatten(flat, from: &start)
                values.append(marker.isNull ? .null : inner)
            } else {
                values.append(start < flat.count ? flat[start] : .null)
                start += 1
            }
        }
        return .composite(CompositeValue(fields: layout.fields.map(\.key), values: values))
    }

    // MARK: Sentinels

    /// Two different values of the type, unlikely to be anyone's (how key paths are told apart),
    /// or `nil` when the type does not have two that can be made (an enum with one known case).
    var sentinels: (AttributeValue, AttributeValue)? { makeSentinels() }

    private func makeSentinels() -> (AttributeValue, AttributeValue)? {
        let pair: (AttributeValue, AttributeValue)?
        switch kind {
        case .scalar: pair = Self.scalarSentinels(description.type)
        case .optional(let wrapped): pair = wrapped.sentinels
        case .collection(let element, _):
            pair = element.sentinels.map { (.array([$0.0]), .array([$0.1, $0.0])) }
        case .raw(let raw):
            guard let cases, cases.count >= 2,
                let a = toValue(cases[0]), let b = toValue(cases[1])
            else { return raw.sentinels.flatMap(verified) }
            pair = (a, b)
        case .composite(let layout):
            if let single = layout.single { return single.sentinels.flatMap(verified) }
            var first: [AttributeValue] = []
            var second: [AttributeValue] = []
            for field in layout.fields {
                guard let (a, b) = field.type.sentinels else { return nil }
                first.append(a)
                second.append(b)
            }
            let keys = layout.fields.map(\.key)
            pair = (
                .composite(CompositeValue(fields: keys, values: first)),
                .composite(CompositeValue(fields: keys, values: second))
            )
        }
        return pair.flatMap(verified)
    }

    /// The pair if both values make Swift values of the type.
    private func verified(_ pair: (AttributeValue, AttributeValue)) -> (
        AttributeValue, AttributeValue
    )? {
        guard fromValue(pair.0) != nil, fromValue(pair.1) != nil, pair.0 != pair.1 else {
            return nil
        }
        return pair
    }

    static func scalarSentinels(_ type: AttributeType) -> (AttributeValue, AttributeValue)? {
        switch type {
        case .string: return (.string("\u{1}logbook probe 1"), .string("\u{2}logbook probe 2"))
        case .url: return (.string("logbook-probe:1"), .string("logbook-probe:2"))
        case .integer: return (.integer(0x5EED_0001_2345), .integer(-0x5EED_0002_6789))
        case .int8: return (.integer(-113), .integer(117))
        case .int16: return (.integer(-31_013), .integer(30_017))
        case .int32: return (.integer(-2_013_265_913), .integer(1_946_157_063))
        case .uint8: return (.integer(229), .integer(151))
        case .uint16: return (.integer(60_013), .integer(40_009))
        case .uint32: return (.integer(4_026_531_857), .integer(3_221_225_473))
        case .uint64: return (.unsigned(0xF5EE_D000_0000_0001), .unsigned(0x5EED_0000_0000_0002))
        case .double: return (.double(1.5e300), .double(-2.25e-300))
        case .float: return (.float(1.5e30), .float(-2.25e-30))
        case .decimal:
            return (
                .decimal(Decimal(sign: .plus, exponent: -20, significand: 5_000_000_001)),
                .decimal(Decimal(sign: .minus, exponent: 30, significand: 7_000_000_003))
            )
        case .bool: return (.bool(true), .bool(false))
        case .date:
            return (
                .date(Date(timeIntervalSinceReferenceDate: 123_456_789.25)),
                .date(Date(timeIntervalSinceReferenceDate: -98_765.5))
            )
        case .data: return (.data(Data([0x5E, 0xED, 1])), .data(Data([0x5E, 0xED, 2, 3])))
        case .uuid:
            return (
                .uuid(UUID(uuid: (0x5E, 0xED, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1))),
                .uuid(UUID(uuid: (0x5E, 0xED, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2)))
            )
        case .array, .set, .composite: return nil
        }
    }
}
