import Foundation

extension AttributeValue {
    /// Converts a plain Swift value to a value of `type`: integers of any width (in the type's
    /// range), `Double`, `Float`, `Decimal`, `String`, `URL`, `Bool`, `Date`, `Data`, `UUID`,
    /// `AttributeValue`, or `nil`. Integers convert to every number type, a `Double` to a
    /// `Float` (rounded, as Swift converts) or a `Decimal` (the shortest text that reads back
    /// as the double, so `9.99` is the decimal 9.99), a valid URL's text to a URL. Arrays, sets
    /// and composites need the attribute's description:
    /// ``converting(_:to:)-(_,AttributeDescription)``.
    /// - Returns: `nil` if `value` cannot be a value of `type`.
    public static func converting(_ value: Any?, to type: AttributeType) -> AttributeValue? {
        guard let value else { return .null }
        if let direct = value as? AttributeValue { return direct.converted(to: type) }
        if let optional = value as? any OptionalProtocol, optional.isNone { return .null }
        if let range = type.integerRange {
            guard let v = value as? any BinaryInteger, let i = Int64(exactly: v),
                range.contains(i)
            else { return nil }
            return .integer(i)
        }
        switch type {
        case .string: return (value as? String).map { .string($0) }
        case .double:
            if let v = value as? Double { return .double(v) }
            if let v = value as? Float { return .double(Double(v)) }
            if let v = value as? any BinaryInteger, let d = Double(exactly: v) { return .double(d) }
            return nil
        case .float:
            if let v = value as? Float { return .float(v) }
            if let v = value as? Double { return .float(Float(v)) }
            if let v = value as? any BinaryInteger, let f = Float(exactly: v) { return .float(f) }
            return nil
        case .uint64:
            guard let v = value as? any BinaryInteger, let u = UInt64(exactly: v) else {
                return nil
            }
            return .unsigned(u)
        case .decimal:
            if let v = value as? Decimal { return .decimal(v) }
            if let v = value as? any BinaryInteger {
                if let i = Int64(exactly: v) { return .decimal(Decimal(i)) }
                if let u = UInt64(exactly: v) { return .decimal(Decimal(u)) }
                return nil
            }
            if let v = value as? Double { return AttributeValue.double(v).converted(to: .decimal) }
            if let v = value as? Float {
                return AttributeValue.float(v).converted(to: .decimal)
            }
            return nil
        case .url:
            if let v = value as? URL { return .string(v.absoluteString) }
            if let v = value as? String, URL(string: v) != nil { return .string(v) }
            return nil
        case .bool: return (value as? Bool).map { .bool($0) }
        case .date: return (value as? Date).map { .date($0) }
        case .data:
            if let v = value as? Data { return .data(v) }
            if let v = value as? [UInt8] { return .data(Data(v)) }
            return nil
        case .uuid: return (value as? UUID).map { .uuid($0) }
        default: return nil
        }
    }

    /// Converts a plain Swift value to a value of `attribute`: what
    /// ``converting(_:to:)-(_,AttributeType)`` converts, and also arrays and sets of
    /// convertible elements (a set's elements put in order), enums by their raw value, `Codable`
    /// structs and `[String: Any]` dictionaries to composites (an array's or set's elements),
    /// and `nil` for an optional attribute; an ``AttributeValue`` of the attribute's type as it
    /// is (a set's elements put in order). It does not check that `nil` is allowed.
    /// - Returns: `nil` if `value` cannot be a value of `attribute`.
    public static func converting(_ value: Any?, to attribute: AttributeDescription)
        -> AttributeValue?
    {
        guard let value else { return .null }
        if let optional = value as? any OptionalProtocol, optional.isNone { return .null }
        if let direct = value as? AttributeValue {
            var converted = direct.converted(to: attribute.type)
            if attribute.type == .set, case .array(let items)? = converted {
                converted = .array(canonicalSet(items))
            }
            return converted.flatMap { attribute.holds($0) ? $0 : nil }
        }
        if let shape = StorableTypes.known(Swift.type(of: value), template: value),
            let v = shape.attributeValue(of: value),
            let converted = v.converted(to: attribute.type), attribute.holds(converted)
        {
            return converted
        }
        switch attribute.type {
        case .array, .set:
            guard let element = attribute.members.first else { return nil }
            var items: [AttributeValue] = []
            if let list = value as? [Any?] {
                for item in list {
                    guard let v = converting(item, to: element), !v.isNull || element.isOptional
                    else { return nil }
                    items.append(v)
                }
            } else if let set = value as? Set<AnyHashable> {
                for item in set {
                    guard let v = converting(item.base, to: element) else { return nil }
                    items.append(v)
                }
            } else {
                return nil
            }
            return .array(attribute.type == .set ? Self.canonicalSet(items) : items)
        case .composite:
            guard let fields = value as? [String: Any?] else { return nil }
            var values: [AttributeValue] = []
            for member in attribute.members {
                guard let v = converting(fields[member.name] ?? nil, to: member),
                    !v.isNull || member.isOptional
                else { return nil }
                values.append(v)
            }
            guard fields.keys.allSatisfy({ name in attribute.members.contains { $0.name == name } })
            else { return nil }
            return .composite(CompositeValue(fields: attribute.members.map(\.name), values: values))
        default:
            if let raw = (value as? any RawRepresentable)?.rawValue {
                return converting(raw, to: attribute.type)
            }
            return converting(value, to: attribute.type)
        }
    }

    /// The same value as a value of `type` where a number converts to it exactly (an integer to
    /// a double or decimal, a float to a double; a double to a float rounded, or to the decimal
    /// its shortest text is), a string to a URL if it is one; `null` stays; `nil` otherwise.
    func converted(to type: AttributeType) -> AttributeValue? {
        if isNull { return self }
        switch (self, type) {
        case (.integer(let i), _) where type.integerRange != nil:
            return type.integerRange!.contains(i) ? self : nil
        case (.unsigned(let u), _) where type.integerRange != nil:
            guard let i = Int64(exactly: u), type.integerRange!.contains(i) else { return nil }
            return .integer(i)
        case (.integer(let i), .uint64): return UInt64(exactly: i).map { .unsigned($0) }
        case (.unsigned, .uint64): return self
        case (.integer(let i), .double): return .double(Double(i))
        case (.unsigned(let u), .double): return .double(Double(u))
        case (.float(let f), .double): return .double(Double(f))
        case (.double, .double): return self
        case (.integer(let i), .float): return .float(Float(i))
        case (.unsigned(let u), .float): return .float(Float(u))
        case (.double(let d), .float): return .float(Float(d))
        case (.float, .float): return self
        case (.integer(let i), .decimal): return .decimal(Decimal(i))
        case (.unsigned(let u), .decimal): return .decimal(Decimal(u))
        case (.double(let d), .decimal):
            if d.isNaN { return .decimal(.nan) }
            guard d.isFinite, let v = Decimal(string: "\(d)", locale: nil) else { return nil }
            return .decimal(v)
        case (.float(let f), .decimal):
            if f.isNaN { return .decimal(.nan) }
            guard f.isFinite, let v = Decimal(string: "\(f)", locale: nil) else { return nil }
            return .decimal(v)
        case (.decimal, .decimal): return self
        case (.string(let s), .url): return URL(string: s) != nil ? self : nil
        case (.array, .array), (.array, .set): return self
        default: return self.type == type ? self : nil
        }
    }

    /// The elements of a set in their stored order: ascending, each value once.
    static func canonicalSet(_ items: [AttributeValue]) -> [AttributeValue] {
        var result: [AttributeValue] = []
        for item in items.sorted(by: { compare($0, $1) == .orderedAscending })
        where result.last.map({ compare($0, item) != .orderedSame }) ?? true {
            result.append(item)
        }
        return result
    }
}

extension AttributeDescription {
    /// Whether `value` is a value of this attribute: `null` (whether allowed or not is the
    /// caller's to check), or of its type and, for integers, in its range; an array's or set's
    /// elements of its member (a set's in order, each once); a composite's fields its members'.
    func holds(_ value: AttributeValue) -> Bool {
        switch (value, type) {
        case (.null, _): return true
        case (.integer(let i), _): return type.integerRange?.contains(i) ?? false
        case (.string(let s), .url): return URL(string: s) != nil
        case (.array(let items), .array), (.array(let items), .set):
            guard let element = members.first else { return false }
            guard items.allSatisfy({ element.holds($0) && (!$0.isNull || element.isOptional) })
            else { return false }
            return type == .array || AttributeValue.canonicalSet(items) == items
        case (.composite(let c), .composite):
            if c.fields.isEmpty && c.values.isEmpty { return true }
            return c.fields == members.map(\.name)
                && zip(c.values, members).allSatisfy { v, m in
                    m.holds(v) && (!v.isNull || m.isOptional)
                }
        default: return value.type == type
        }
    }
}
