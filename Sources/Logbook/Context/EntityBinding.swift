/// One entity of an open container: its schema description, record codec, and — when the app
/// declared a class for it — the class layout, with each attribute's field.
///
/// Immutable and `Sendable`; the methods that take objects run on a context's thread.
final class EntityBinding: Sendable {
    /// The entity's position in the container's schema.
    let index: Int
    let entity: Entity
    /// What records store: the attributes, then the to-one relationships' keys.
    let stored: Entity
    let codec: RecordCodec
    let layout: ModelLayout?
    /// For each attribute, the index of its field in `layout`.
    private let fieldOfAttribute: [Int]
    /// For a class, its fields in attribute order.
    private let orderedFields: [any FieldAccessor]
    /// For a class, where each attribute's wrapper keeps its owner and slot.
    private let ownerOffsets: [Int]
    private let slotOffsets: [Int]
    let uniqueAttributes: [Int]
    /// For a class, the accessor of each relationship (by position in `entity.relationships`).
    let relationshipFields: [any RelationshipAccessor]
    /// For each relationship, its stored position (to-one) or -1 (to-many).
    let relationshipSlots: [Int]
    /// For a class, owner offsets of the to-many fields (adopted but not stored).
    private let toManyOwnerOffsets: [(owner: Int, slot: Int, value: Int32)]

    /// - Throws: ``LogbookError/incompatibleSchema(entity:attribute:reason:)`` if the class lacks
    ///   a stored attribute or holds it with another type.
    init(index: Int, entity: Entity, codec: RecordCodec, layout: ModelLayout?) throws {
        self.index = index
        self.entity = entity
        let stored = entity.storedFields
        self.stored = stored
        self.codec = codec
        self.layout = layout
        var fields: [Int] = []
        var relationshipFields: [any RelationshipAccessor] = []
        var toMany: [(owner: Int, slot: Int, value: Int32)] = []
        var slots: [Int] = []
        var nextToOne = entity.attributes.count
        for (r, relationship) in entity.relationships.enumerated() {
            if relationship.isToMany {
                slots.append(-1)
            } else {
                slots.append(nextToOne)
                nextToOne += 1
            }
            guard let layout else { continue }
            guard
                let field = layout.fields.first(where: { $0.name == relationship.name })
                    as? any RelationshipAccessor,
                field.isToMany == relationship.isToMany,
                field.destinationType.entityName == relationship.destination
            else {
                throw LogbookError.incompatibleSchema(
                    entity: entity.name, attribute: relationship.name,
                    reason: "the class \(layout.modelType) has no such relationship")
            }
            relationshipFields.append(field)
            if relationship.isToMany {
                toMany.append((field.ownerOffset, field.slotOffset, Int32(-(2 + r))))
            }
        }
        self.relationshipFields = relationshipFields
        self.relationshipSlots = slots
        self.toManyOwnerOffsets = toMany
        if let layout {
            for attribute in stored.attributes {
                guard let field = layout.fields.firstIndex(where: { $0.name == attribute.name }),
                    layout.fields[field].type == attribute.type,
                    layout.fields[field].isOptional == attribute.isOptional
                else {
                    throw LogbookError.incompatibleSchema(
                        entity: entity.name, attribute: attribute.name,
                        reason:
                            "the class \(layout.modelType) has no property of this type and optionality"
                    )
                }
                fields.append(field)
            }
        }
        fieldOfAttribute = fields
        orderedFields = layout.map { layout in fields.map { layout.fields[$0] } } ?? []
        ownerOffsets = orderedFields.map(\.ownerOffset)
        slotOffsets = orderedFields.map(\.slotOffset)
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

    /// Appends attribute `index`'s value; `false` (nothing appended) for `null`.
    @inline(__always)
    func encodeValue(_ object: AnyObject, _ index: Int, _ w: inout ByteWriter) -> Bool {
        if layout != nil { return orderedFields[index].encode(object, into: &w) }
        let v = unsafeDowncast(object, to: ManagedObject.self).values[index]
        if v.isNull { return false }
        w.value(v)
        return true
    }

    /// Reads attribute `index`'s (non-null) value from `r` into the object.
    @inline(__always)
    func decodeValue(_ object: AnyObject, _ index: Int, _ r: inout ByteReader) throws {
        if layout != nil { return try orderedFields[index].decode(&r, into: object) }
        unsafeDowncast(object, to: ManagedObject.self).values[index] = try r.value(
            stored.attributes[index].type)
    }

    /// Decodes a whole record into the object (fast path for the current schema version).
    /// - Returns: the record's object version.
    /// - Throws: ``LogbookError/corruptRecord(entity:key:reason:)``.
    @inline(__always)
    func load(
        _ buffer: UnsafeRawBufferPointer, into object: AnyObject, key: @autoclosure () -> String
    ) throws -> UInt64 {
        if let version = try codec.decodeCurrent(
            buffer, key: key(), field: { i, r in try decodeValue(object, i, &r) },
            null: { i in write(object, i, .null) })
        {
            return version
        }
        return try codec.decode(buffer, key: key()) { i, v in write(object, i, v) }
    }

    /// Whether `value` (already of the attribute's type, or `null`) can be stored in the
    /// object's field: `null` only for optionals when a class holds it.
    func canHold(_ value: AttributeValue, at index: Int) -> Bool {
        let attribute = stored.attributes[index]
        if value.isNull { return layout == nil || attribute.isOptional }
        return value.type == attribute.type
    }

    func readAll(_ object: AnyObject) -> [AttributeValue] {
        (0..<stored.attributes.count).map { read(object, $0) }
    }

    /// A new, unregistered object with default values.
    func makeObject() -> AnyObject {
        if let layout { return layout.modelType.init() }
        return ManagedObject(values: stored.attributes.map(\.initialValue))
    }

    /// Makes `backing` the object's state (and `nil` detaches it).
    func adopt(_ object: AnyObject, _ backing: ModelBacking?) {
        if layout != nil {
            let base = Unmanaged.passUnretained(object).toOpaque()
            for i in 0..<ownerOffsets.count {
                base.advanced(by: ownerOffsets[i]).assumingMemoryBound(to: ModelBacking?.self)
                    .pointee = backing
                base.advanced(by: slotOffsets[i]).assumingMemoryBound(to: Int32.self).pointee =
                    Int32(i)
            }
            for field in toManyOwnerOffsets {
                base.advanced(by: field.owner).assumingMemoryBound(to: ModelBacking?.self).pointee =
                    backing
                base.advanced(by: field.slot).assumingMemoryBound(to: Int32.self).pointee =
                    field.value
            }
        } else if let backing {
            unsafeDowncast(object, to: ManagedObject.self).attach(backing)
        }
    }

    /// The backing of an object of this entity, if registered.
    func backing(of object: AnyObject) -> ModelBacking? {
        if layout != nil {
            return Unmanaged.passUnretained(object).toOpaque().advanced(by: ownerOffsets[0])
                .assumingMemoryBound(to: ModelBacking?.self).pointee
        }
        return (object as? ManagedObject)?.backing
    }
}
