/// The whole type of a stored value, as the codecs need it (FORMAT.md Part 2, "Values"): a type
/// code, and for an array or set its element, for a composite value inside one its fields.
/// Immutable, `Sendable`.
indirect enum ValueShape: Sendable, Hashable {
    /// Any type but the three below; an entity's own composite attribute (whose fields are
    /// attributes of their own, so its value takes no bytes) is a `.scalar(.composite)`.
    case scalar(AttributeType)
    /// An array or set of `element`s, which may be `null` when `optional`.
    case collection(element: ValueShape, optional: Bool, isSet: Bool)
    /// A composite value inside an array or set: its fields' names, shapes and optionality.
    case composite(fields: [String], shapes: [ValueShape], optional: [Bool])

    /// The shape of `attribute`'s values.
    init(_ attribute: AttributeDescription) {
        switch attribute.type {
        case .array, .set:
            let element = attribute.members.first ?? .element(.composite)
            self = .collection(
                element: ValueShape(element), optional: element.isOptional,
                isSet: attribute.type == .set)
        case .composite where !attribute.members.isEmpty:
            self = .composite(
                fields: attribute.members.map(\.name),
                shapes: attribute.members.map(ValueShape.init),
                optional: attribute.members.map(\.isOptional))
        default:
            self = .scalar(attribute.type)
        }
    }

    /// The type code.
    var type: AttributeType {
        switch self {
        case .scalar(let type): return type
        case .collection(_, _, let isSet): return isSet ? .set : .array
        case .composite: return .composite
        }
    }
}
