/// One entity of an open container: its schema description, record codec, and — when the app
/// declared a class for it — the class layout, with each stored field's place in the object.
///
/// Immutable and `Sendable`; the methods that take objects run on a context's thread.
final class EntityBinding: @unchecked Sendable {  // raw buffers below are written once in init
    /// The entity's position in the container's schema.
    let index: Int
    let entity: Entity
    /// What records store: the attributes, then the stored relationships (to-one keys, links).
    let stored: Entity
    let codec: RecordCodec
    let layout: ModelLayout?
    /// For a class, the accessor of each stored field (by stored position).
    private let storedFields: [any FieldAccessor]
    /// For a class, each stored field's kind and value offset, as raw buffers (no reference
    /// counting in the encode and decode loops).
    let kinds: UnsafeMutableBufferPointer<FieldKind>
    let valueOffsets: UnsafeMutableBufferPointer<Int>
    /// For a class, every field (stored or not) to adopt: where its `entry`, `info` and (for
    /// relationships) `slot` are, with the position each gets.
    let adoptions: [(entry: Int, info: Int, slot: Int?, position: Int, slotValue: Int32)]
    /// How many fields records store (for a class, `storedFields.count`).
    private let storedCount: Int
    /// The current record layout as raw buffers, for ``load(_:into:primaryKey:)``.
    private let recordLayout: RecordCodec.ScanLayout
    /// For a class, the anchor's `owner` and `entry` offsets.
    private let anchorOwner: Int
    private let anchorEntry: Int
    let uniqueAttributes: [Int]
    /// For a class, the accessor of each relationship (by position in `entity.relationships`).
    let relationshipFields: [any RelationshipAccessor]
    /// For each relationship, its stored position (to-one, storing side of a many-to-many) or
    /// -1 (derived to-many).
    let relationshipSlots: [Int]
    /// How many attributes records store (stored positions below it are attributes).
    let attributeCount: Int
    /// Whether a relationship of the entity has the `.deny` delete rule.
    let hasDenyRule: Bool
    /// The key paths observation hears of, by property (``ObservedProperties``).
    let observedKeyPaths: [KeyPath<ObservedProperties, Int>]
    /// For each stored field, the derived inverse a change of it changes too (observation).
    let derivedInverses: [(entity: Int, property: Int)?]
    /// For each stored field, the fields of the composite it is (empty for any other field).
    let compositeFields: [[Int]]
    /// Whether any of ``compositeFields`` is not empty.
    let hasComposites: Bool
    /// For a class, the stored fields whose values are converted from Swift values that may
    /// fail to convert (enums, arrays, composites…): checked before a record is encoded.
    private let convertedFields: [Int]
    /// For a class, each composite property not read in place: its marker's stored position,
    /// the stored position of each of its fields (in ``StorableType/flatten(_:)`` order), and
    /// the property. A record's values for them are gathered, then each composite is made once.
    private let composites: [(marker: Int, fields: [Int], property: any CompositeProperty)]
    /// Whether a record's composite fields must be gathered before each composite is made
    /// (else each field is written in place as it is read).
    private let gathersComposites: Bool
    /// The stored fields of the composites in ``composites``.
    private let gatheredFields: Set<Int>
    /// Bit i: stored field i (i < 64) is the marker of a composite that is never absent, which
    /// decoding a record leaves as the object's `init()` made it.
    private let presentMarkers: UInt64

    /// - Throws: ``LogbookError/incompatibleSchema(entity:attribute:reason:)`` if the class lacks
    ///   a stored attribute or holds it with another type.
    /// - Parameter schema: the container's entities, in binding order (for observation of
    ///   derived inverses; none for a binding used alone).
    init(
        index: Int, entity: Entity, codec: RecordCodec, layout: ModelLayout?,
        schema: [Entity] = []
    ) throws {
        self.index = index
        self.entity = entity
        let stored = entity.storedFields
        self.stored = stored
        self.codec = codec
        self.layout = layout
        var relationshipFields: [any RelationshipAccessor] = []
        var slots: [Int] = []
        var nextToOne = entity.attributes.count
        var storedFields: [any FieldAccessor] = []
        var adoptions: [(entry: Int, info: Int, slot: Int?, position: Int, slotValue: Int32)] = []
        for relationship in entity.relationships {
            slots.append(relationship.isStored ? nextToOne : -1)
            if relationship.isStored { nextToOne += 1 }
        }
        if let layout {
            for attribute in entity.attributes {
                guard let field = layout.fields.first(where: { $0.name == attribute.name }),
                    !(field is any RelationshipAccessor),
                    field.attribute.storesSameValues(as: attribute),
                    field.isOptional == attribute.isOptional
                else {
                    throw LogbookError.incompatibleSchema(
                        entity: entity.name, attribute: attribute.name,
                        reason:
                            "the class \(layout.modelType) has no property of this type (\(attribute.declaredType))"
                    )
                }
                if field.adoptsWrapper {
                    adoptions.append(
                        (field.entryOffset, field.infoOffset, nil, storedFields.count, 0))
                }
                storedFields.append(field)
            }
            for (r, relationship) in entity.relationships.enumerated() {
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
                let slotValue = relationship.isStored ? Int32(slots[r]) : Int32(-(2 + r))
                adoptions.append(
                    (
                        field.entryOffset, field.infoOffset, field.slotOffset, max(slots[r], 0),
                        slotValue
                    ))
            }
            for (r, relationship) in entity.relationships.enumerated() where relationship.isStored {
                storedFields.append(relationshipFields[r])
            }
        }
        self.relationshipFields = relationshipFields
        self.relationshipSlots = slots
        attributeCount = stored.attributes.count
        hasDenyRule = entity.relationships.contains { $0.deleteRule == .deny }
        derivedInverses = Self.derivedInverses(of: entity, in: schema)
        observedKeyPaths = ObservedProperties.keyPaths(
            entity: index, count: stored.attributes.count + entity.relationships.count)
        compositeFields = stored.attributes.indices.map { stored.compositeFields(of: $0) }
        hasComposites = compositeFields.contains { !$0.isEmpty }
        var composites: [(marker: Int, fields: [Int], property: any CompositeProperty)] = []
        for (i, field) in storedFields.enumerated() {
            // A composite read in place (``CompositeProperty/isDirect``) is not gathered.
            guard let marker = field as? any CompositeMarkerField,
                !marker.compositeProperty.isDirect
            else { continue }
            let parts = storedFields.indices.compactMap { j -> (Int, Int)? in
                guard let part = storedFields[j] as? CompositeFieldAccessor,
                    part.property === marker.compositeProperty
                else { return nil }
                return (part.index, j)
            }.sorted { $0.0 < $1.0 }
            composites.append((i, parts.map(\.1), marker.compositeProperty))
        }
        self.composites = composites
        gathersComposites = !composites.isEmpty
        var gathers = Set<Int>()
        for composite in composites { gathers.formUnion([composite.marker] + composite.fields) }
        gatheredFields = gathers
        convertedFields = storedFields.indices.filter {
            storedFields[$0] is any ConvertedField && storedFields[$0].adoptsWrapper
        }
        var presentMarkers: UInt64 = 0
        for (i, field) in storedFields.prefix(64).enumerated() {
            if let marker = field as? any CompositeMarkerField,
                !marker.compositeProperty.storable.isOptional
            {
                presentMarkers |= 1 << UInt64(i)
            }
        }
        self.presentMarkers = presentMarkers
        self.storedFields = storedFields
        self.adoptions = adoptions
        anchorOwner = layout?.anchor.ownerOffset ?? 0
        anchorEntry = layout?.anchor.entryOffset ?? 0
        recordLayout = codec.makeScanLayout()
        storedCount = stored.attributes.count
        kinds = .allocate(capacity: max(storedFields.count, 1))
        _ = kinds.initialize(from: storedFields.map(\.kind))
        valueOffsets = .allocate(capacity: max(storedFields.count, 1))
        _ = valueOffsets.initialize(from: storedFields.map(\.valueOffset))
        // Every stored field of a unique constraint, single or compound.
        uniqueAttributes = Array(
            Set(
                entity.attributes.indices.filter { entity.attributes[$0].isUnique }
                    + entity.indexes.filter(\.isUnique).flatMap {
                        $0.fields.compactMap { stored.attributeIndex($0) }
                    })
        ).sorted()
    }

    deinit {
        recordLayout.deallocate()
        kinds.deallocate()
        valueOffsets.deallocate()
    }

    var keyspace: String { entity.name }

    @inline(__always)
    func base(_ object: AnyObject) -> UnsafeMutableRawPointer {
        unsafeBitCast(object, to: UnsafeMutableRawPointer.self)
    }

    /// Stored field `index`'s value; the common kinds are read in place (no accessor call).
    @inline(__always)
    func read(_ object: AnyObject, _ index: Int) -> AttributeValue {
        guard layout != nil else {
            return unsafeDowncast(object, to: ManagedObject.self).values[index]
        }
        let raw = base(object) + valueOffsets[index]
        switch kinds[index] {
        case .string: return .string(raw.assumingMemoryBound(to: String.self).pointee)
        case .int64: return .integer(raw.load(as: Int64.self))
        case .int: return .integer(Int64(raw.load(as: Int.self)))
        case .double: return .double(raw.load(as: Double.self))
        case .bool: return .bool(raw.load(as: Bool.self))
        case .other, .toOne, .composite: return storedFields[index].read(object)
        }
    }

    /// The first stored field of the object whose Swift value does not convert to a stored
    /// value (a custom `Encodable` conformance that writes other fields than it reads, or a
    /// raw value its enum does not have), or `nil`.
    func unconvertibleField(_ object: AnyObject) -> Int? {
        guard layout != nil else { return nil }
        return convertedFields.first {
            (storedFields[$0] as? any ConvertedField)?.converts(object) == false
        }
    }

    /// For a class, the accessor of stored field `index`.
    func storedField(_ index: Int) -> any FieldAccessor { storedFields[index] }

    /// Writes a value that ``canHold(_:at:)`` accepted.
    @inline(__always)
    func write(_ object: AnyObject, _ index: Int, _ value: AttributeValue) {
        if layout != nil {
            _ = storedFields[index].write(object, value)
        } else {
            unsafeDowncast(object, to: ManagedObject.self).values[index] = value
        }
    }

    /// ``write(_:_:_:)`` of the value a record of an older version lacking field `index` reads
    /// as: the common kinds in place (no accessor, whose generic conversion looks up metadata).
    @inline(__always)
    private func writeMissing(_ object: AnyObject, _ index: Int, _ value: AttributeValue) {
        let raw = base(object) + valueOffsets[index]
        switch (kinds[index], value) {
        case (.string, .string(let v)): raw.assumingMemoryBound(to: String.self).pointee = v
        case (.int64, .integer(let v)): raw.assumingMemoryBound(to: Int64.self).pointee = v
        case (.double, .double(let v)): raw.assumingMemoryBound(to: Double.self).pointee = v
        case (.bool, .bool(let v)): raw.assumingMemoryBound(to: Bool.self).pointee = v
        default: write(object, index, value)
        }
    }

    /// Appends stored field `index`'s value; `false` (nothing appended) for `null`.
    @inline(__always)
    func encodeValue(_ object: AnyObject, _ index: Int, _ w: inout ByteWriter) -> Bool {
        guard layout != nil else {
            let v = unsafeDowncast(object, to: ManagedObject.self).values[index]
            if v.isNull { return false }
            w.value(v, as: codec.shape(index))
            return true
        }
        let raw = base(object) + valueOffsets[index]
        switch kinds[index] {
        case .string: w.string(at: raw.assumingMemoryBound(to: String.self))
        case .int64: w.zigzag(raw.load(as: Int64.self))
        case .int: w.zigzag(Int64(raw.load(as: Int.self)))
        case .double: w.double(raw.load(as: Double.self))
        case .bool: w.bytes.append(raw.load(as: Bool.self) ? 1 : 0)
        case .other, .toOne, .composite: return storedFields[index].encode(object, into: &w)
        }
        return true
    }

    /// Reads stored field `index`'s (non-null) value from `r` into the object.
    @inline(__always)
    func decodeValue(_ object: AnyObject, _ index: Int, _ r: inout ByteReader) throws {
        guard layout != nil else {
            unsafeDowncast(object, to: ManagedObject.self).values[index] = try r.value(
                codec.shape(index))
            return
        }
        let raw = base(object) + valueOffsets[index]
        switch kinds[index] {
        case .string: raw.assumingMemoryBound(to: String.self).pointee = try r.string()
        case .int64: raw.assumingMemoryBound(to: Int64.self).pointee = try r.zigzag()
        case .int:
            guard let v = Int(exactly: try r.zigzag()) else { throw ByteReader.Truncated() }
            raw.assumingMemoryBound(to: Int.self).pointee = v
        case .double: raw.assumingMemoryBound(to: Double.self).pointee = try r.double()
        case .bool:
            let b = try r.byte()
            guard b <= 1 else { throw ByteReader.Truncated() }
            raw.assumingMemoryBound(to: Bool.self).pointee = b == 1
        case .other, .toOne, .composite: try storedFields[index].decode(&r, into: object)
        }
    }

    /// Decodes a whole record into the object (fast path for the current schema version).
    /// - Returns: the record's object version.
    /// - Throws: ``LogbookError/corruptRecord(entity:key:reason:)`` naming `primaryKey`.
    @inline(__always)
    func load(_ buffer: UnsafeRawBufferPointer, into object: AnyObject, primaryKey: UInt64)
        throws -> UInt64
    {
        if layout != nil {
            do {
                if let version = try loadFields(buffer, into: object) { return version }
            } catch {
                throw codec.corrupt(primaryKey)
            }
            // A record of an older version that only lacks the last fields: read in place too.
            if !gathersComposites,
                let version = try codec.decodePrefix(
                    buffer, primaryKey: primaryKey,
                    field: { i, r in try decodeValue(object, i, &r) },
                    null: { i in write(object, i, .null) },
                    missing: { i, v in writeMissing(object, i, v) })
            {
                return version
            }
        } else if let version = try codec.decodeCurrent(
            buffer, primaryKey: primaryKey, field: { i, r in try decodeValue(object, i, &r) },
            null: { i in write(object, i, .null) })
        {
            return version
        }
        return try codec.decode(buffer, key: String(primaryKey)) { i, v in write(object, i, v) }
    }

    /// Decodes a record of the current layout into a class's object, field by field from the
    /// raw tables (no closure or accessor per field for the common kinds); `nil`, having
    /// written nothing, for a record of another layout.
    /// - Returns: the record's object version.
    /// - Throws: ``ByteReader/Truncated`` (only).
    @inline(__always)
    private func loadFields(_ buffer: UnsafeRawBufferPointer, into object: AnyObject)
        throws -> UInt64?
    {
        if gathersComposites { return try loadGathering(buffer, into: object) }
        var r = ByteReader(buffer)
        let version = try r.varint()
        guard recordLayout.hasCurrentLayout(version) else { return nil }
        let objectVersion = try r.varint()
        let bitmapStart = r.offset
        let bitmapBytes = recordLayout.bitmapBytes
        guard buffer.count - bitmapStart >= bitmapBytes else { throw ByteReader.Truncated() }
        r.offset += bitmapBytes
        let base = base(object)
        for i in 0..<storedCount {
            let slot = recordLayout.optionalSlot[i]
            if slot >= 0 && buffer[bitmapStart + slot / 8] & (1 << UInt8(slot % 8)) != 0 {
                _ = storedFields[i].write(object, .null)
                continue
            }
            // The switch of `decodeValue` written out again: through a shared helper (even one
            // marked always-inline) the loop cost about 90 more instructions a record.
            let raw = base + valueOffsets[i]
            switch kinds[i] {
            case .string: raw.assumingMemoryBound(to: String.self).pointee = try r.string()
            case .int64: raw.assumingMemoryBound(to: Int64.self).pointee = try r.zigzag()
            case .int:
                guard let v = Int(exactly: try r.zigzag()) else { throw ByteReader.Truncated() }
                raw.assumingMemoryBound(to: Int.self).pointee = v
            case .double: raw.assumingMemoryBound(to: Double.self).pointee = try r.double()
            case .bool:
                let b = try r.byte()
                guard b <= 1 else { throw ByteReader.Truncated() }
                raw.assumingMemoryBound(to: Bool.self).pointee = b == 1
            case .composite where i < 64 && presentMarkers & 1 << UInt64(i) != 0:
                // Present already, as `init()` made it; its fields follow as fields of their own.
                continue
            case .other, .toOne, .composite: try storedFields[i].decode(&r, into: object)
            }
        }
        guard r.isAtEnd else { throw ByteReader.Truncated() }
        return objectVersion
    }

    /// ``loadFields(_:into:)`` for a class with composite properties: their stored fields'
    /// values are gathered, then each composite is made from them once.
    private func loadGathering(_ buffer: UnsafeRawBufferPointer, into object: AnyObject)
        throws -> UInt64?
    {
        var r = ByteReader(buffer)
        let version = try r.varint()
        guard recordLayout.hasCurrentLayout(version) else { return nil }
        let objectVersion = try r.varint()
        let bitmapStart = r.offset
        guard buffer.count - bitmapStart >= recordLayout.bitmapBytes else {
            throw ByteReader.Truncated()
        }
        r.offset += recordLayout.bitmapBytes
        var gathered = [AttributeValue](repeating: .null, count: storedCount)
        for i in 0..<storedCount {
            let slot = recordLayout.optionalSlot[i]
            let isNull =
                slot >= 0 && buffer[bitmapStart + slot / 8] & (1 << UInt8(slot % 8)) != 0
            if gatheredFields.contains(i) {
                if !isNull { gathered[i] = try r.value(codec.shape(i)) }
            } else if isNull {
                _ = storedFields[i].write(object, .null)
            } else {
                try decodeValue(object, i, &r)
            }
        }
        guard r.isAtEnd else { throw ByteReader.Truncated() }
        for composite in composites {
            let fields =
                gathered[composite.marker].isNull ? nil : composite.fields.map { gathered[$0] }
            guard composite.property.set(object, fields: fields) else {
                throw ByteReader.Truncated()
            }
        }
        return objectVersion
    }

    /// Whether `value` (already of the attribute's type, or `null`) can be stored in the
    /// object's field: `null` only for optionals when a class holds it.
    func canHold(_ value: AttributeValue, at index: Int) -> Bool {
        let attribute = stored.attributes[index]
        if value.isNull { return layout == nil || attribute.isOptional }
        return attribute.holds(value)
    }

    func readAll(_ object: AnyObject) -> [AttributeValue] {
        (0..<stored.attributes.count).map { read(object, $0) }
    }

    /// A new, unregistered object with default values.
    func makeObject() -> AnyObject {
        if let layout { return layout.modelType.init() }
        return ManagedObject(values: stored.attributes.map(\.initialValue), binding: self)
    }

    /// Registers the object's fields with `table` as entry `entry` (`nil` detaches them).
    func adopt(_ object: AnyObject, table: ObjectTable?, entry: Int32, probe: Bool = false) {
        guard layout != nil else {
            unsafeDowncast(object, to: ManagedObject.self).attach(table, entry: entry)
            return
        }
        let base = base(object)
        base.advanced(by: anchorOwner).assumingMemoryBound(to: ObjectTable?.self).pointee = table
        for field in adoptions {
            base.advanced(by: field.entry).storeBytes(of: entry, as: Int32.self)
            let info = base.advanced(by: field.info).assumingMemoryBound(to: UInt32.self)
            info.pointee =
                table == nil
                ? info.pointee & FieldInfo.declared
                : FieldInfo.registered(
                    info.pointee, slot: field.position, anchorOffset: anchorOwner, probe: probe)
            if let slot = field.slot {
                base.advanced(by: slot).storeBytes(of: field.slotValue, as: Int32.self)
            }
        }
    }

    /// The table and entry an object of this entity is registered with, if any.
    @inline(__always)
    func registration(of object: AnyObject) -> (table: ObjectTable, entry: Int32)? {
        guard layout != nil else {
            let managed = unsafeDowncast(object, to: ManagedObject.self)
            return managed.owner.map { ($0, managed.entry) }
        }
        let base = base(object)
        guard let table = base.load(fromByteOffset: anchorOwner, as: ObjectTable?.self) else {
            return nil
        }
        return (table, base.load(fromByteOffset: anchorEntry, as: Int32.self))
    }

    /// The entry `object` has in `table`, if it is registered there (without retaining
    /// anything).
    @inline(__always)
    func entry(of object: AnyObject, in table: ObjectTable) -> Int32? {
        guard isRegistered(object, with: table) else { return nil }
        guard layout != nil else { return unsafeDowncast(object, to: ManagedObject.self).entry }
        return base(object).load(fromByteOffset: anchorEntry, as: Int32.self)
    }

    /// Whether `object` is registered with `table` (without retaining anything).
    @inline(__always)
    func isRegistered(_ object: AnyObject, with table: ObjectTable) -> Bool {
        guard layout != nil else {
            return unsafeDowncast(object, to: ManagedObject.self).owner === table
        }
        return base(object).load(fromByteOffset: anchorOwner, as: UnsafeRawPointer?.self)
            == UnsafeRawPointer(Unmanaged.passUnretained(table).toOpaque())
    }
}
