@_spi(Reflection) import Swift
import Synchronization

/// Reads and writes one ``Attribute`` field of model objects of one class, by its offset.
///
/// Invariant: `object` passed to any method is an instance of the class the accessor was made
/// for (callers check the class before using a layout).
protocol FieldAccessor: Sendable {
    var name: String { get }
    var type: AttributeType { get }
    var isOptional: Bool { get }
    func read(_ object: AnyObject) -> AttributeValue
    /// Returns `false` (and writes nothing) if `value` has another type.
    func write(_ object: AnyObject, _ value: AttributeValue) -> Bool
    func owner(_ object: AnyObject) -> ModelBacking?
    func adopt(_ object: AnyObject, owner: ModelBacking?, slot: Int)
    func options(_ object: AnyObject) -> Set<AttributeOption>
}

/// A ``FieldAccessor`` for an `Attribute<Value>` at a fixed offset in the object.
///
/// The offsets of the wrapper's own fields are computed once, so access needs no metadata
/// of `Attribute<Value>` (which unspecialized generic code would look up on every call).
struct TypedFieldAccessor<Value: AttributeStorable>: FieldAccessor {
    let name: String
    private let valueOffset: Int
    private let ownerOffset: Int
    private let slotOffset: Int
    private let optionsOffset: Int
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
    }

    @inline(__always)
    private func base(_ object: AnyObject) -> UnsafeMutableRawPointer {
        Unmanaged.passUnretained(object).toOpaque()
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

    func owner(_ object: AnyObject) -> ModelBacking? {
        base(object).advanced(by: ownerOffset).assumingMemoryBound(to: Optional<ModelBacking>.self).pointee
    }

    func adopt(_ object: AnyObject, owner: ModelBacking?, slot: Int) {
        base(object).advanced(by: ownerOffset).assumingMemoryBound(to: Optional<ModelBacking>.self).pointee = owner
        base(object).advanced(by: slotOffset).assumingMemoryBound(to: Int32.self).pointee = Int32(slot)
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
    /// The entity the class declares.
    let entity: Entity

    private static let cache = Mutex<[ObjectIdentifier: ModelLayout]>([:])

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
        let complete = _forEachField(of: type, options: classTypeOption) { name, offset, fieldType, _ in
            if let attributeType = fieldType as? any AttributeField.Type {
                var label = String(cString: name)
                if label.hasPrefix("_") { label.removeFirst() }
                if let accessor = attributeType.makeAccessor(name: label, offset: offset) {
                    fields.append(accessor)
                } else {
                    unreadable = label
                }
            }
            return true
        }
        let entityName = type.entityName
        guard complete, unreadable == nil else {
            throw LogbookError.invalidSchema("the class of entity \(entityName) cannot be reflected")
        }
        guard !fields.isEmpty else {
            throw LogbookError.invalidSchema(
                "\(entityName) declares no @Attribute properties; add at least one")
        }
        let prototype = type.init()
        let attributes = fields.map { field in
            let options = field.options(prototype)
            let value = field.read(prototype)
            return AttributeDescription(
                field.name, field.type, optional: field.isOptional,
                defaultValue: value.isNull ? nil : value, indexed: options.contains(.indexed),
                unique: options.contains(.unique))
        }
        return ModelLayout(
            modelType: type, fields: fields, entity: Entity(name: entityName, attributes: attributes))
    }
}

/// `_EachFieldOptions.classType`, spelled by value: the stdlib declares it as a `static var`,
/// which strict concurrency rejects.
private let classTypeOption = _EachFieldOptions(rawValue: 1 << 0)
