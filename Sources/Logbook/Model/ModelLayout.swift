import LogStore
@_spi(Reflection) import Swift
import Synchronization

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

    /// `body`'s answer for the layout of the class `type` if the latest lookup found it,
    /// without a lock, a conformance check or retaining the layout; `nil` otherwise (then ask
    /// ``of(_:)``).
    @inline(__always)
    static func withLatest<R>(for type: AnyObject.Type, _ body: (ModelLayout) -> R) -> R? {
        let bits = latest.load(ordering: .acquiring)
        guard bits != 0 else { return nil }
        // Layouts stay in `cache` for the life of the process.
        return Unmanaged<ModelLayout>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!)
            ._withUnsafeGuaranteedRef { layout in
                ObjectIdentifier(layout.modelType) == ObjectIdentifier(type) ? body(layout) : nil
            }
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
        var unstorable: (String, Any.Type, String)?
        var plain: [String] = []
        // The instance whose values show composites' fields (see ``AttributeField``).
        let reflected = type.init()
        // Fields of superclasses come first: a subclass stores what it inherits.
        let complete = _forEachField(of: type, options: classTypeOption) {
            name, offset, fieldType, _ in
            var label = String(cString: name)
            if label.hasPrefix("_") { label.removeFirst() }
            let made: [any FieldAccessor]??
            if let attributeType = fieldType as? any AttributeField.Type {
                do {
                    made = try attributeType.makeAccessors(
                        name: label, offset: offset, prototype: reflected)
                } catch let refusal as StorableTypes.Refusal {
                    unstorable = unstorable ?? (label, fieldType, refusal.reason)
                    made = .none
                } catch {
                    unstorable = unstorable ?? (label, fieldType, String(describing: error))
                    made = .none
                }
            } else if let relationshipType = fieldType as? any RelationshipField.Type {
                made = relationshipType.makeAccessor(name: label, offset: offset).map { [$0] }
            } else {
                if !(fieldType is any TransientField.Type) { plain.append(label) }
                made = .none
            }
            switch made {
            case .some(.some(let accessors)): fields += accessors
            case .some(.none): unreadable = label
            case .none: break
            }
            return true
        }
        let entityName = type.entityName
        if let (label, fieldType, reason) = unstorable {
            throw LogbookError.unstorableAttribute(
                entity: entityName, attribute: label, type: Self.valueTypeName(fieldType),
                reason: reason)
        }
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
            let value = field.read(prototype)
            let constant = !value.isNull && value == field.read(second)
            var attribute = field.attribute
            attribute.defaultValue = constant ? value : nil
            if field.adoptsWrapper {
                let options = field.options(prototype)
                attribute.isIndexed = options.contains(.indexed)
                attribute.isUnique = options.contains(.unique)
                attribute.originalName = field.originalName(prototype)
                attribute.isSearchable = options.contains(.searchable)
            }
            return attribute
        }
        let relationships = fields.compactMap { $0 as? any RelationshipAccessor }.map { field in
            var relationship = RelationshipDescription(
                field.name, destination: field.destinationType.entityName, toMany: field.isToMany,
                deleteRule: field.deleteRule(prototype))
            relationship.originalName = field.originalName(prototype)
            return relationship
        }
        return ModelLayout(
            modelType: type, fields: fields,
            entity: Entity(name: entityName, attributes: attributes, relationships: relationships))
    }
}

extension ModelLayout {
    /// `Int32?` for the wrapper type `Attribute<Optional<Int32>>`.
    fileprivate static func valueTypeName(_ wrapper: Any.Type) -> String {
        let name = String(describing: wrapper)
        guard name.hasPrefix("Attribute<"), name.hasSuffix(">") else { return name }
        var inner = String(name.dropFirst("Attribute<".count).dropLast())
        while inner.hasPrefix("Optional<") && inner.hasSuffix(">") {
            inner = String(inner.dropFirst("Optional<".count).dropLast()) + "?"
        }
        return inner
    }

    /// The property a stored field belongs to (`$__lazy_storage_$_x` is the lazy `x`).
    fileprivate static func propertyName(_ field: String) -> String {
        let lazy = "$__lazy_storage_$_"
        return field.hasPrefix(lazy) ? String(field.dropFirst(lazy.count)) : field
    }
}

/// `_EachFieldOptions.classType`, spelled by value: the stdlib declares it as a `static var`,
/// which strict concurrency rejects.
private let classTypeOption = _EachFieldOptions(rawValue: 1 << 0)
