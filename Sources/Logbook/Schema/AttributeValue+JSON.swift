import Foundation

extension AttributeValue {
    /// Reads a value of `attribute` from its JSON form (``AttributeValue/TextFormat/json``);
    /// `nil` if `json` is not one. Integers convert to every number type, a set's elements are
    /// put in order; nothing else converts. An entity's composite attribute is `{}` (present)
    /// or `null`.
    package init?(json: JSONValue, as attribute: AttributeDescription) {
        let type = attribute.type
        switch (json, type) {
        case (.null, _): self = .null
        case (.bool(let value), .bool): self = .bool(value)
        case (.number(let text), _) where type.isNumber:
            if let value = AttributeValue(text: text, as: type) {
                self = value
            } else if let integer = AttributeValue(text: text, as: .integer),
                let converted = AttributeValue.converting(integer, to: type)
            {
                self = converted
            } else {
                return nil
            }
        case (.string(let text), .double), (.string(let text), .float):
            // Only the non-finite numbers are strings.
            guard let value = AttributeValue(text: text, as: type) else { return nil }
            if case .double(let d) = value, d.isFinite { return nil }
            if case .float(let f) = value, f.isFinite { return nil }
            self = value
        case (.string(let text), .decimal):
            guard text.lowercased() == "nan" else { return nil }
            self = .decimal(.nan)
        case (.string(let text), .string), (.string(let text), .date), (.string(let text), .data),
            (.string(let text), .uuid), (.string(let text), .url):
            self.init(text: text, as: type)
        case (.array(let items), .array), (.array(let items), .set):
            guard let element = attribute.members.first else { return nil }
            var values: [AttributeValue] = []
            for item in items {
                guard let value = AttributeValue(json: item, as: element),
                    !value.isNull || element.isOptional
                else { return nil }
                values.append(value)
            }
            guard
                let converted = AttributeValue.converting(
                    AttributeValue.array(values), to: attribute)
            else { return nil }
            self = converted
        case (.object(let members), .composite):
            if attribute.members.isEmpty {
                guard members.isEmpty else { return nil }
                self = .composite(CompositeValue(fields: [], values: []))
                return
            }
            var values: [AttributeValue] = []
            for member in attribute.members {
                let found = members.first { $0.key == member.name }?.value ?? .null
                guard let value = AttributeValue(json: found, as: member),
                    !value.isNull || member.isOptional
                else { return nil }
                values.append(value)
            }
            guard members.allSatisfy({ m in attribute.members.contains { $0.name == m.key } })
            else { return nil }
            self = .composite(CompositeValue(fields: attribute.members.map(\.name), values: values))
        default: return nil
        }
    }
}

extension AttributeType {
    /// Whether JSON writes values of the type as numbers.
    package var isNumber: Bool {
        switch self {
        case .integer, .int8, .int16, .int32, .uint8, .uint16, .uint32, .uint64, .double, .float,
            .decimal:
            return true
        default: return false
        }
    }
}
