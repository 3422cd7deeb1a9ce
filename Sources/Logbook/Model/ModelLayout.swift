import LogStore
@_spi(Reflection) import Swift

/// Reads and writes one ``Attribute`` field of model objects of one class, by its offset.
///
/// Invariant: `object` passed to any method is an instance of the class the accessor was made
/// for (callers check the class before using a layout).
protocol FieldAccessor: AnyObject, Sendable {
    var name: String { get }
    var type: AttributeType { get }
    var isOptional: Bool { get }
    func read(_ object: AnyObject) -> AttributeValue
    /// Returns `false` (and writes nothing) if `value` has another type.
    func write(_ object: AnyObject, _ value: AttributeValue) -> Bool
    func owner(_ object: AnyObject) -> ModelBacking?
    func adopt(_ object: AnyObject, owner: ModelBacking?, slot: Int)
    /// Offsets in the object of the wrapper's `owner` and `slot` fields.
    var ownerOffset: Int { get }
    var slotOffset: Int { get }
    func options(_ object: AnyObject) -> Set<AttributeOption>
    /// Appends the value's encoding; `false` (nothing appended) for `nil`.
    func encode(_ object: AnyObject, into w: inout ByteWriter) -> Bool
    /// Reads a non-null value of the field's type from `r` into the field.
    func decode(_ r: inout ByteReader, into object: AnyObject) throws
    /// Stores `nil`; `false` if the field is not optional.
    func setNull(_ object: AnyObject) -> Bool
}

/// A ``FieldAccessor`` for an `Attribute<Value>` at a fixed offset in the object.
///
/// The offsets of the wrapper's own fields are computed once, so access needs no metadata
/// of `Attribute<Value>` (which unspecialized generic code would look up on every call).
final class TypedFieldAccessor<Value: AttributeStorable>: FieldAccessor {
    let name: String
    private let valueOffset: Int
    let ownerOffset: Int
    let slotOffset: Int
    private let optionsOffset: Int
    /// The concrete type, for the fast encode and decode paths.
    private let kind: Kind
    private enum Kind { case string, int64, int, double, bool, other }
    var type: AttributeType { Value.attributeType }
    var isOptional: Bool { Value.isOptionalAttribute }

    /// `nil` if the wrapper's layout cannot be determined.
    init?(name: String, offset: Int) {
        guard let value = MemoryLayout<Attribute<Value>>.offset(of: \Attribute<Value>.value),
            let owner = MemoryLayout<Attribute<Value>>.offset(of: \Attribute<Value>.owner),
            let slot = MemoryLayout<Attribute<Value>>.offset(of: \Attribute<Value>.slot),
            let options = MemoryLayout<Attribute<Value>>.offset(of: \Attribute<Value>.optionBits)
        else { return nil }
        self.name = name
        valueOffset = offset + value
        ownerOffset = offset + owner
        slotOffset = offset + slot
        optionsOffset = offset + options
        kind =
            Value.self == String.self
            ? .string
            : Value.self == Int64.self
                ? .int64
                : Value.self == Int.self
                    ? .int
                    : Value.self == Double.self ? .double : Value.self == Bool.self ? .bool : .other
    }

    @inline(__always)
    private func base(_ object: AnyObject) -> UnsafeMutableRawPointer {
        // A bit cast, not `Unmanaged<AnyObject>`, whose generic metadata unspecialized code
        // would look up on every call. A class reference is the object's address.
        unsafeBitCast(object, to: UnsafeMutableRawPointer.self)
    }

    @inline(__always)
    private func value(_ object: AnyObject) -> UnsafeMutablePointer<Value> {
        base(object).advanced(by: valueOffset).assumingMemoryBound(to: Value.self)
    }

    @inline(__always)
    func read(_ object: AnyObject) -> AttributeValue { value(object).pointee.attributeValue }

    @inline(__always)
    func write(_ object: AnyObject, _ newValue: AttributeValue) -> Bool {
        guard let v = Value(attributeValue: newValue) else { return false }
        value(object).pointee = v
        return true
    }

    @inline(__always)
    func encode(_ object: AnyObject, into w: inout ByteWriter) -> Bool {
        // A raw pointer: a typed one to `Value` would look up generic metadata on every call.
        let raw = base(object).advanced(by: valueOffset)
        switch kind {
        case .string: w.string(raw.assumingMemoryBound(to: String.self).pointee)
        case .int64: w.zigzag(raw.load(as: Int64.self))
        case .int: w.zigzag(Int64(raw.load(as: Int.self)))
        case .double: w.double(raw.load(as: Double.self))
        case .bool: w.bytes.append(raw.load(as: Bool.self) ? 1 : 0)
        case .other:
            let v = read(object)
            if v.isNull { return false }
            w.value(v)
        }
        return true
    }

    @inline(__always)
    func decode(_ r: inout ByteReader, into object: AnyObject) throws {
        let raw = base(object).advanced(by: valueOffset)
        switch kind {
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
        case .other:
            guard let v = Value(attributeValue: try r.value(Value.attributeType)) else {
                throw ByteReader.Truncated()
            }
            value(object).pointee = v
        }
    }

    func setNull(_ object: AnyObject) -> Bool { write(object, .null) }

    func owner(_ object: AnyObject) -> ModelBacking? {
        base(object).advanced(by: ownerOffset).assumingMemoryBound(to: Optional<ModelBacking>.self)
            .pointee
    }

    func adopt(_ object: AnyObject, owner: ModelBacking?, slot: Int) {
        base(object).advanced(by: ownerOffset).assumingMemoryBound(to: Optional<ModelBacking>.self)
            .pointee = owner
        base(object).advanced(by: slotOffset).assumingMemoryBound(to: Int32.self).pointee = Int32(
            slot)
    }

    func options(_ object: AnyObject) -> Set<AttributeOption> {
        let bits = base(object).advanced(by: optionsOffset).load(as: UInt8.self)
        var result = Set<AttributeOption>()
        if bits & 1 != 0 { result.insert(.indexed) }
        if bits & 2 != 0 { result.insert(.unique) }
        return result
    }
}

/// The attributes of a ``PersistentModel`` class, found once by reflection and cached: the
/// `@Attribute` stored properties in declaration order (`_salary` gives `salary`), with the
/// defaults and options of a prototype made with `init()`.
// @unchecked: every stored property is immutable; a metatype is safe to share.
final class ModelLayout: @unchecked Sendable {
    let modelType: any PersistentModel.Type
    let fields: [any FieldAccessor]
    /// The entity the class declares (relationships without their inverses, which
    /// ``ModelContainer`` resolves across classes).
    let entity: Entity

    private static let cache = Locked<[ObjectIdentifier: ModelLayout]>([:])

    private init(modelType: any PersistentModel.Type, fields: [any FieldAccessor], entity: Entity) {
        self.modelType = modelType
        self.fields = fields
        self.entity = entity
    }

    /// The layout of `type`, reflected on first use.
    /// - Throws: ``LogbookError/invalidSchema(_:)`` if the class has no `@Attribute`.
    static func of(_ type: any PersistentModel.Type) throws -> ModelLayout {
        let key = ObjectIdentifier(type)
        if let known = cache.withLock({ $0[key] }) { return known }
        let layout = try reflect(type)
        return cache.withLock { cache in
            if let known = cache[key] { return known }
            cache[key] = layout
            return layout
        }
    }

    private static func reflect(_ type: any PersistentModel.Type) throws -> ModelLayout {
        var fields: [any FieldAccessor] = []
        var unreadable: String?
        let complete = _forEachField(of: type, options: classTypeOption) {
            name, offset, fieldType, _ in
            if let attributeType = fieldType as? any AttributeField.Type {
                var label = String(cString: name)
                if label.hasPrefix("_") { label.removeFirst() }
                if let accessor = attributeType.makeAccessor(name: label, offset: offset) {
                    fields.append(accessor)
                } else {
                    unreadable = label
                }
            } else if let relationshipType = fieldType as? any RelationshipField.Type {
                var label = String(cString: name)
                if label.hasPrefix("_") { label.removeFirst() }
                if let accessor = relationshipType.makeAccessor(name: label, offset: offset) {
                    fields.append(accessor)
                } else {
                    unreadable = label
                }
            }
            return true
        }
        let entityName = type.entityName
        guard complete, unreadable == nil else {
            throw LogbookError.invalidSchema(
                "the class of entity \(entityName) cannot be reflected")
        }
        guard fields.contains(where: { !($0 is any RelationshipAccessor) }) else {
            throw LogbookError.invalidSchema(
                "\(entityName) declares no @Attribute properties; add at least one")
        }
        // Two prototypes: a default that differs between them (`Date()`, `UUID()`) is not a
        // constant, so it is not written into the schema (where it would change the
        // fingerprint, and so the schema version, at every launch).
        let prototype = type.init()
        let second = type.init()
        let attributes = fields.filter { !($0 is any RelationshipAccessor) }.map { field in
            let options = field.options(prototype)
            let value = field.read(prototype)
            let constant = !value.isNull && value == field.read(second)
            return AttributeDescription(
                field.name, field.type, optional: field.isOptional,
                defaultValue: constant ? value : nil, indexed: options.contains(.indexed),
                unique: options.contains(.unique))
        }
        let relationships = fields.compactMap { $0 as? any RelationshipAccessor }.map { field in
            RelationshipDescription(
                field.name, destination: field.destinationType.entityName, toMany: field.isToMany,
                deleteRule: field.deleteRule(prototype))
        }
        return ModelLayout(
            modelType: type, fields: fields,
            entity: Entity(name: entityName, attributes: attributes, relationships: relationships))
    }
}

/// `_EachFieldOptions.classType`, spelled by value: the stdlib declares it as a `static var`,
/// which strict concurrency rejects.
private let classTypeOption = _EachFieldOptions(rawValue: 1 << 0)
