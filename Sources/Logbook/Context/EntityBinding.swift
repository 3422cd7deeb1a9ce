/// One entity of an open container: its schema description, record codec, and — when the app
/// declared a class for it — the class layout, with each attribute's field.
///
/// Immutable and `Sendable`; the methods that take objects run on a context's thread.
final class EntityBinding: Sendable {
    /// The entity's position in the container's schema.
    let index: Int
    let entity: Entity
    let codec: RecordCodec
    let layout: ModelLayout?
    /// For each attribute, the index of its field in `layout`.
    private let fieldOfAttribute: [Int]
    let uniqueAttributes: [Int]

    /// - Throws: ``LogbookError/incompatibleSchema(entity:attribute:reason:)`` if the class lacks
    ///   a stored attribute or holds it with another type.
    init(index: Int, entity: Entity, codec: RecordCodec, layout: ModelLayout?) throws {
        self.index = index
        self.entity = entity
        self.codec = codec
        self.layout = layout
        var fields: [Int] = []
        if let layout {
            for attribute in entity.attributes {
                guard let field = layout.fields.firstIndex(where: { $0.name == attribute.name }),
                    layout.fields[field].type == attribute.type,
                    layout.fields[field].isOptional == attribute.isOptional
                else {
                    throw LogbookError.incompatibleSchema(
                        entity: entity.name, attribute: attribute.name,
                        reason: "the class \(layout.modelType) has no property of this type and optionality")
                }
                fields.append(field)
            }
        }
        fieldOfAttribute = fields
        uniqueAttributes = entity.attributes.indices.filter { entity.attributes[$0].isUnique }
    }

    var keyspace: String { entity.name }

    @inline(__always)
    func read(_ object: AnyObject, _ index: Int) -> AttributeValue {
        if let layout { return layout.fields[fieldOfAttribute[index]].read(object) }
        return unsafeDowncast(object, to: ManagedObject.self).values[index]
    }

    /// Writes a value that ``canHold(_:at:)`` accepted.
    @inline(__always)
    func write(_ object: AnyObject, _ index: Int, _ value: AttributeValue) {
        if let layout {
            _ = layout.fields[fieldOfAttribute[index]].write(object, value)
        } else {
            unsafeDowncast(object, to: ManagedObject.self).values[index] = value
        }
    }

    /// Whether `value` (already of the attribute's type, or `null`) can be stored in the
    /// object's field: `null` only for optionals when a class holds it.
    func canHold(_ value: AttributeValue, at index: Int) -> Bool {
        let attribute = entity.attributes[index]
        if value.isNull { return layout == nil || attribute.isOptional }
        return value.type == attribute.type
    }

    func readAll(_ object: AnyObject) -> [AttributeValue] {
        (0..<entity.attributes.count).map { read(object, $0) }
    }

    /// A new, unregistered object with default values.
    func makeObject() -> AnyObject {
        if let layout { return layout.modelType.init() }
        return ManagedObject(values: entity.attributes.map(\.initialValue))
    }

    /// Makes `backing` the object's state (and `nil` detaches it).
    func adopt(_ object: AnyObject, _ backing: ModelBacking?) {
        if let layout {
            for (attribute, field) in fieldOfAttribute.enumerated() {
                layout.fields[field].adopt(object, owner: backing, slot: attribute)
            }
        } else if let backing {
            unsafeDowncast(object, to: ManagedObject.self).attach(backing)
        }
    }

    /// The backing of an object of this entity, if registered.
    func backing(of object: AnyObject) -> ModelBacking? {
        if let layout { return layout.fields[fieldOfAttribute[0]].owner(object) }
        return (object as? ManagedObject)?.backing
    }
}
