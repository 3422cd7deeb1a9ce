import LogStore
@_spi(Reflection) import Swift
import Synchronization

/// How a stored field's value is held, for the encode and decode loops: the common types are
/// read and written in place; the rest go through their accessor.
enum FieldKind: UInt8 {
    case string, int64, int, double, bool
    /// Any other type (optionals, dates, data, UUIDs), through ``FieldAccessor``.
    case other
    /// A to-one relationship, stored as the destination's primary key.
    case toOne
}

/// Reads and writes one ``Attribute`` or ``Relationship`` field of model objects of one class,
/// by its offset.
///
/// Invariant: `object` passed to any method is an instance of the class the accessor was made
/// for (callers check the class before using a layout).
protocol FieldAccessor: AnyObject, Sendable {
    var name: String { get }
    var type: AttributeType { get }
    var isOptional: Bool { get }
    var kind: FieldKind { get }
    /// Offsets in the object of the value and of the wrapper's `owner`, `entry` and `info`.
    var valueOffset: Int { get }
    var ownerOffset: Int { get }
    var entryOffset: Int { get }
    var infoOffset: Int { get }
    func read(_ object: AnyObject) -> AttributeValue
    /// Returns `false` (and writes nothing) if `value` has another type.
    func write(_ object: AnyObject, _ value: AttributeValue) -> Bool
    /// Appends the value's encoding; `false` (nothing appended) for `nil`.
    func encode(_ object: AnyObject, into w: inout ByteWriter) -> Bool
    /// Reads a non-null value of the field's type from `r` into the field.
    func decode(_ r: inout ByteReader, into object: AnyObject) throws
    /// The Swift type of the property (`String`, `Int64?`, …).
    var valueType: Any.Type { get }
    /// Whether `result` has exactly the property's type and equals the field's value in
    /// `object` (how ``KeyPathResolver`` tells a key path that is the property itself).
    func holds(_ result: Any, in object: AnyObject) -> Bool
}

extension FieldAccessor {
    /// Options given at the declaration.
    func options(_ object: AnyObject) -> Set<AttributeOption> {
        FieldInfo.options(
            unsafeBitCast(object, to: UnsafeRawPointer.self).load(
                fromByteOffset: infoOffset, as: UInt32.self))
    }
}

/// A ``FieldAccessor`` for an `Attribute<Value>` at a fixed offset in the object.
///
/// The offsets of the wrapper's own fields are computed once, so access needs no metadata
/// of `Attribute<Value>` (which unspecialized generic code would look up on every call).
final class TypedFieldAccessor<Value: AttributeStorable>: FieldAccessor {
    let name: String
    let valueOffset: Int
    let ownerOffset: Int
    let entryOffset: Int
    let infoOffset: Int
    let kind: FieldKind
    var type: AttributeType { Value.attributeType }
    var isOptional: Bool { Value.isOptionalAttribute }

    /// `nil` if the wrapper's layout cannot be determined.
    init?(name: String, offset: Int) {
        typealias Wrapper = Attribute<Value>
        guard let value = MemoryLayout<Wrapper>.offset(of: \Wrapper.value),
            let owner = MemoryLayout<Wrapper>.offset(of: \Wrapper.owner),
            let entry = MemoryLayout<Wrapper>.offset(of: \Wrapper.entry),
            let info = MemoryLayout<Wrapper>.offset(of: \Wrapper.info)
        else { return nil }
        self.name = name
        valueOffset = offset + value
        ownerOffset = offset + owner
        entryOffset = offset + entry
        infoOffset = offset + info
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
    private func value(_ object: AnyObject) -> UnsafeMutablePointer<Value> {
        // A bit cast, not `Unmanaged<AnyObject>`: a class reference is the object's address.
        unsafeBitCast(object, to: UnsafeMutableRawPointer.self).advanced(by: valueOffset)
            .assumingMemoryBound(to: Value.self)
    }

    func read(_ object: AnyObject) -> AttributeValue { value(object).pointee.attributeValue }

    func write(_ object: AnyObject, _ newValue: AttributeValue) -> Bool {
        guard let v = Value(attributeValue: newValue) else { return false }
        value(object).pointee = v
        return true
    }

    func encode(_ object: AnyObject, into w: inout ByteWriter) -> Bool {
        let v = read(object)
        if v.isNull { return false }
        w.value(v)
        return true
    }

    func decode(_ r: inout ByteReader, into object: AnyObject) throws {
        guard let v = Value(attributeValue: try r.value(Value.attributeType)) else {
            throw ByteReader.Truncated()
        }
        value(object).pointee = v
    }

    var valueType: Any.Type { Value.self }

    func holds(_ result: Any, in object: AnyObject) -> Bool {
        guard let v = result as? Value else { return false }
        return v.attributeValue == read(object)
    }
}

/// The fields of a ``PersistentModel`` class, found once by reflection and cached: the
/// `@Attribute` and `@Relationship` stored properties in declaration order (`_salary` gives
/// `salary`), with the defaults and options of a prototype made with `init()`.
// @unchecked: every stored property is immutable; a metatype is safe to share.
final class ModelLayout: @unchecked Sendable {
    let modelType: any PersistentModel.Type
    let fields: [any FieldAccessor]
    /// The entity the class declares (relationships without their inverses, which
    /// ``ModelContainer`` resolves across classes).
    let entity: Entity

    /// Where the anchor field (``anchor``) keeps the object's table and entry.
    private let ownerOffset: Int
    private let entryOffset: Int

    private static let cache = Locked<[ObjectIdentifier: ModelLayout]>([:])
    /// The layout the latest lookup found, as a pointer (0: none): a lock-free first try for
    /// the common case of one class asked for many times. Layouts stay in ``cache`` for the
    /// life of the process, so the pointer stays valid.
    private static let latest = Atomic<UInt>(0)

    private init(modelType: any PersistentModel.Type, fields: [any FieldAccessor], entity: Entity) {
        self.modelType = modelType
        self.fields = fields
        self.entity = entity
        ownerOffset = fields[0].ownerOffset
        entryOffset = fields[0].entryOffset
    }

    /// The field that holds the object's table (``FieldInfo``): the first.
    var anchor: any FieldAccessor { fields[0] }

    /// The table and entry of a registered instance of the class, or `nil`.
    func registration(of object: AnyObject) -> (table: ObjectTable, entry: Int32)? {
        let base = unsafeBitCast(object, to: UnsafeRawPointer.self)
        guard let table = base.load(fromByteOffset: ownerOffset, as: ObjectTable?.self)
        else { return nil }
        return (table, base.load(fromByteOffset: entryOffset, as: Int32.self))
    }

    /// Calls `body` with the table and entry of a registered instance of the class, without
    /// retaining the table (the object's anchor holds it while `object` lives); `nil` if the
    /// object is not registered.
    @inline(__always)
    func withTable<R>(of object: AnyObject, _ body: (ObjectTable, Int32) -> R?) -> R? {
        let base = unsafeBitCast(object, to: UnsafeRawPointer.self)
        guard let raw = base.load(fromByteOffset: ownerOffset, as: UnsafeRawPointer?.self) else {
            return nil
        }
        let entry = base.load(fromByteOffset: entryOffset, as: Int32.self)
        return Unmanaged<ObjectTable>.fromOpaque(raw)._withUnsafeGuaranteedRef { body($0, entry) }
    }

    /// The layout of the class `type` if the latest lookup found it, without a lock or a
    /// conformance check; `nil` otherwise (then ask ``of(_:)``).
    static func latest(for type: AnyObject.Type) -> ModelLayout? {
        let bits = latest.load(ordering: .acquiring)
        guard bits != 0 else { return nil }
        let layout = Unmanaged<ModelLayout>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!)
            .takeUnretainedValue()
        return ObjectIdentifier(layout.modelType) == ObjectIdentifier(type) ? layout : nil
    }

    /// The layout of `type`, reflected on first use.
    /// - Throws: ``LogbookError/invalidSchema(_:)`` if the class has no `@Attribute` or cannot be
    ///   reflected.
    static func of(_ type: any PersistentModel.Type) throws -> ModelLayout {
        let key = ObjectIdentifier(type)
        let layout: ModelLayout
        if let known = cache.withLock({ $0[key] }) {
            layout = known
        } else {
            let made = try reflect(type)
            layout = cache.withLock { cache in
                if let known = cache[key] { return known }
                cache[key] = made
                return made
            }
        }
        latest.store(
            UInt(bitPattern: Unmanaged.passUnretained(layout).toOpaque()), ordering: .releasing)
        return layout
    }

    private static func reflect(_ type: any PersistentModel.Type) throws -> ModelLayout {
        var fields: [any FieldAccessor] = []
        var unreadable: String?
        var plain: [String] = []
        // Fields of superclasses come first: a subclass stores what it inherits.
        let complete = _forEachField(of: type, options: classTypeOption) {
            name, offset, fieldType, _ in
            var label = String(cString: name)
            if label.hasPrefix("_") { label.removeFirst() }
            let made: (any FieldAccessor)??
            if let attributeType = fieldType as? any AttributeField.Type {
                made = attributeType.makeAccessor(name: label, offset: offset)
            } else if let relationshipType = fieldType as? any RelationshipField.Type {
                made = relationshipType.makeAccessor(name: label, offset: offset)
            } else {
                if !(fieldType is any TransientField.Type) { plain.append(label) }
                made = .none
            }
            switch made {
            case .some(.some(let accessor)): fields.append(accessor)
            case .some(.none): unreadable = label
            case .none: break
            }
            return true
        }
        let entityName = type.entityName
        guard complete, unreadable == nil else {
            throw LogbookError.invalidSchema(
                "the class of entity \(entityName) cannot be reflected")
        }
        if let first = plain.first {
            throw LogbookError.invalidSchema(
                "\(entityName).\(Self.propertyName(first)) is a stored property without @Attribute, so its values would not be stored; mark it @Attribute to store it, or @Transient to keep it out of the store"
            )
        }
        guard fields.contains(where: { !($0 is any RelationshipAccessor) }) else {
            throw LogbookError.invalidSchema(
                "\(entityName) declares no @Attribute properties; add at least one")
        }
        guard fields.count <= FieldInfo.maxSlot,
            fields.allSatisfy({ $0.infoOffset + 4 <= FieldInfo.maxOffset })
        else {
            throw LogbookError.invalidSchema(
                "\(entityName) has more fields or bytes than a model class may have (\(FieldInfo.maxSlot) fields, \(FieldInfo.maxOffset) bytes)"
            )
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
                unique: options.contains(.unique), searchable: options.contains(.searchable))
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

extension ModelLayout {
    /// The property a stored field belongs to (`$__lazy_storage_$_x` is the lazy `x`).
    fileprivate static func propertyName(_ field: String) -> String {
        let lazy = "$__lazy_storage_$_"
        return field.hasPrefix(lazy) ? String(field.dropFirst(lazy.count)) : field
    }
}

/// `_EachFieldOptions.classType`, spelled by value: the stdlib declares it as a `static var`,
/// which strict concurrency rejects.
private let classTypeOption = _EachFieldOptions(rawValue: 1 << 0)
