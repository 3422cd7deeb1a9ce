/// What a ``Relationship`` holds: an optional model (to-one) or an array of models (to-many).
public protocol RelationshipValue {
    /// The model class the relationship reaches.
    associatedtype Destination: PersistentModel
    /// Whether the relationship reaches many objects.
    static var isToMany: Bool { get }
    /// The objects held.
    var relatedObjects: [Destination] { get }
    /// A value holding `relatedObjects` (the first one, for to-one).
    init(relatedObjects: [Destination])
}

/// What `Optional` can wrap in a relationship: a model (a to-one, `Company?`) or an array of
/// models (the optional to-many spelling, `[Worker]?`, where `nil` reads as no objects).
public protocol OptionalRelationshipContent {
    /// The model class reached.
    associatedtype RelatedModel: PersistentModel
    /// Whether the content is an array (a to-many relationship).
    static var isManyRelated: Bool { get }
    /// The models in `value` (an instance of the conforming type).
    static func relatedModels(in value: Any) -> [RelatedModel]
    /// A value holding `models` (the first one, for a model).
    static func optionalContent(of models: [RelatedModel]) -> Any?
}

extension PersistentModel {
    /// `false`: a model is a to-one relationship's target.
    public static var isManyRelated: Bool { false }
    /// The model itself.
    public static func relatedModels(in value: Any) -> [RelatedModel] {
        (value as? RelatedModel).map { [$0] } ?? []
    }
    /// The first model.
    public static func optionalContent(of models: [RelatedModel]) -> Any? { models.first }
}

extension Array: OptionalRelationshipContent where Element: PersistentModel {
    public typealias RelatedModel = Element
    /// `true`: `[Model]?` is a to-many relationship.
    public static var isManyRelated: Bool { true }
    /// The array.
    public static func relatedModels(in value: Any) -> [Element] { value as? [Element] ?? [] }
    /// The array of `models`.
    public static func optionalContent(of models: [Element]) -> Any? { models }
}

extension Optional: RelationshipValue where Wrapped: OptionalRelationshipContent {
    public typealias Destination = Wrapped.RelatedModel
    public static var isToMany: Bool { Wrapped.isManyRelated }
    public var relatedObjects: [Destination] { self.map { Wrapped.relatedModels(in: $0) } ?? [] }
    public init(relatedObjects: [Destination]) {
        self = Wrapped.optionalContent(of: relatedObjects) as? Wrapped
    }
}

extension Array: RelationshipValue where Element: PersistentModel {
    public typealias Destination = Element
    public static var isToMany: Bool { true }
    public var relatedObjects: [Element] { self }
    public init(relatedObjects: [Element]) { self = relatedObjects }
}

/// A relationship of a ``PersistentModel`` class: to one object
/// (`@Relationship var company: Company?`) or to many
/// (`@Relationship(deleteRule: .cascade, inverse: \Employee.company) var employees: [Employee] = []`).
///
/// A to-one relationship is stored with the object; reading it fetches the related object
/// (once) from the context. A to-many relationship whose inverse is to-one is derived: reading
/// it fetches the objects whose to-one points here (seeing pending changes), and assigning it
/// sets or clears their to-one. A many-to-many pair (both sides to-many, e.g.
/// `Student.courses` and `Course.students`) keeps its links on one side and derives the other
/// the same way. Either way the inverses are in step by construction, also after
/// ``ModelContext/rollback()`` and merges. Assigning an object not yet in the context inserts
/// it. Related objects are read through the object's context, so keep the context alive while
/// you follow relationships. Only usable in `PersistentModel` classes whose container knows
/// the destination class. The optional spelling of a to-many
/// (`var workers: [Worker]? = []`) is the same relationship; it reads as `[]`, never `nil`,
/// once the object is in a context.
/// - Complexity: reading a derived to-many relationship is one index lookup of the
///   destination entity (plus the context's pending changes).
@propertyWrapper
public struct Relationship<Value: RelationshipValue> {
    /// To-one: the target, when `isResolved`. To-many: members set before the owner was inserted.
    @usableFromInline var value: Value
    /// The context's object table, in the object's anchor field only (see ``FieldInfo``).
    @usableFromInline var owner: ObjectTable?
    /// The object's entry in that table; -1 until registered.
    @usableFromInline var entry: Int32 = -1
    /// Flags and the anchor's offset (``FieldInfo``); the position bits hold the stored slot
    /// of a to-one relationship.
    @usableFromInline var info: UInt32 = 0
    /// Stored (a to-one, or the storing side of a many-to-many): the relationship's position
    /// among the entity's stored fields. Derived to-many: `-(2 + its position among the
    /// entity's relationships)`. -1 until adopted.
    @usableFromInline var slot: Int32 = -1
    /// To-one: the destination's primary key as stored (0 for none). Stored to-many: the
    /// destination keys as stored when they pack into one word (``PackedLinks``), else 0.
    @usableFromInline var key: UInt64 = 0
    /// Stored to-many: the destination keys as stored, ascending, when they do not pack into
    /// `key`.
    @usableFromInline var links: [UInt64] = []
    /// Stored: whether `value` reflects `key` or `links`.
    @usableFromInline var isResolved = true
    @usableFromInline let deleteRule: DeleteRule
    @usableFromInline let inverse: AnyKeyPath?
    /// The name earlier versions of the model gave the relationship (SwiftData's
    /// `@Relationship(originalName:)`), or `nil`.
    @usableFromInline let originalName: String?

    /// A relationship starting at `wrappedValue`, with a delete rule and the key path of the
    /// inverse relationship on the destination (found automatically when there is only one).
    @inlinable
    public init(
        wrappedValue: Value, deleteRule: DeleteRule = .nullify,
        inverse: PartialKeyPath<Value.Destination>? = nil
    ) {
        self.value = wrappedValue
        self.deleteRule = deleteRule
        self.inverse = inverse
        self.originalName = nil
    }

    /// A relationship that earlier versions of the model called `originalName`: opening a store
    /// of such a version renames it, keeping what it reaches.
    public init(
        wrappedValue: Value, deleteRule: DeleteRule = .nullify,
        inverse: PartialKeyPath<Value.Destination>? = nil, originalName: String
    ) {
        self.value = wrappedValue
        self.deleteRule = deleteRule
        self.inverse = inverse
        self.originalName = originalName
    }

    /// Reads and writes through the enclosing object's context.
    public static subscript<Model: PersistentModel>(
        _enclosingInstance object: Model,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Model, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Model, Relationship<Value>>
    ) -> Value {
        get {
            let storage = object[keyPath: storageKeyPath]
            guard storage.info & FieldInfo.adopted != 0,
                let table = FieldInfo.table(object, storage.info)?.takeUnretainedValue()
            else { return storage.value }
            if storage.info & FieldInfo.probe != 0 {
                FieldInfo.noteProbe(
                    object, info: storage.info, slot: Int(storage.slot), keyPath: wrappedKeyPath)
                return storage.value
            }
            if storage.slot >= 0 {
                FieldInfo.observe(object, info: storage.info, entry: storage.entry)
            } else {
                FieldInfo.observeDerived(
                    object, info: storage.info, entry: storage.entry,
                    relationship: -(Int(storage.slot) + 2))
            }
            guard let context = table.context else { return storage.value }
            if Value.isToMany && storage.slot >= 0 {
                if storage.isResolved {
                    return Value(
                        relatedObjects: storage.value.relatedObjects.filter { !$0.isDeleted })
                }
                let targets = storage.storedLinks.compactMap {
                    context.relatedTarget(key: $0, as: Value.Destination.self)
                }
                object[keyPath: storageKeyPath].value = Value(relatedObjects: targets)
                object[keyPath: storageKeyPath].isResolved = true
                return Value(relatedObjects: targets.filter { !$0.isDeleted })
            }
            if Value.isToMany {
                let members =
                    (try? context.relatedObjects(of: object, storage.entry, slot: Int(storage.slot)))
                    ?? []
                return Value(relatedObjects: members.compactMap { $0 as? Value.Destination })
            }
            if storage.isResolved {
                if let target = storage.value.relatedObjects.first, target.isDeleted {
                    return Value(relatedObjects: [])
                }
                return storage.value
            }
            let target = context.relatedTarget(key: storage.key, as: Value.Destination.self)
            object[keyPath: storageKeyPath].value = Value(relatedObjects: target.map { [$0] } ?? [])
            object[keyPath: storageKeyPath].isResolved = true
            return object[keyPath: storageKeyPath].value
        }
        set {
            let storage = object[keyPath: storageKeyPath]
            guard storage.info & FieldInfo.adopted != 0,
                let context = FieldInfo.table(object, storage.info)?.takeUnretainedValue().context
            else {
                object[keyPath: storageKeyPath].value = newValue
                return
            }
            for target in newValue.relatedObjects { context.insert(target) }
            if Value.isToMany {
                context.setMembers(
                    newValue.relatedObjects, of: object, storage.entry, slot: Int(storage.slot))
                return
            }
            FieldInfo.willChange(object, info: storage.info, entry: storage.entry)
            object[keyPath: storageKeyPath].value = newValue
            object[keyPath: storageKeyPath].isResolved = true
            object[keyPath: storageKeyPath].key =
                newValue.relatedObjects.first?.persistentModelID.primaryKey ?? 0
        }
    }

    /// The value. Inside a ``PersistentModel`` class Swift uses the enclosing-instance subscript.
    public var wrappedValue: Value {
        get { value }
        set { value = newValue }
    }

    /// Stored to-many: the destination keys as stored, ascending (packed or not).
    var storedLinks: [UInt64] { key != 0 ? PackedLinks.keys(key) : links }
}

extension Relationship: CustomReflectable {
    /// The related object or objects as last loaded, and the stored key of a to-one.
    public var customMirror: Mirror {
        Value.isToMany
            ? Mirror(self, children: ["value": value])
            : Mirror(self, children: ["value": value, "key": key])
    }
}

/// Type-erased access to ``Relationship`` fields, for reflection.
protocol RelationshipField {
    static func makeAccessor(name: String, offset: Int) -> (any FieldAccessor)?
}

extension Relationship: RelationshipField {
    static func makeAccessor(name: String, offset: Int) -> (any FieldAccessor)? {
        RelationshipFieldAccessor<Value>(name: name, offset: offset)
    }
}

/// What reflection and the context need to know of a relationship field.
protocol RelationshipAccessor: FieldAccessor {
    /// Offset in the object of the wrapper's `slot`.
    var slotOffset: Int { get }
    var destinationType: any PersistentModel.Type { get }
    var isToMany: Bool { get }
    func deleteRule(_ object: AnyObject) -> DeleteRule
    func originalName(_ object: AnyObject) -> String?
    func inverseKeyPath(_ object: AnyObject) -> AnyKeyPath?
    /// To-one: the target object if it is loaded, else `nil`.
    func loadedTarget(_ object: AnyObject) -> AnyObject?
    /// To-one: points the field at `target` (`nil` clears it).
    func setTarget(_ object: AnyObject, _ target: AnyObject?)
    /// Storing side of a many-to-many: makes `members` the linked objects.
    func setMembers(_ object: AnyObject, _ members: [AnyObject])
    /// To-one: points a key-path probe's field at `target`, another probe (whose identifier is
    /// not read).
    func setProbeTarget(_ object: AnyObject, _ target: AnyObject)
    /// To-many: members assigned before the owner was inserted (then cleared).
    func takeEarlyMembers(_ object: AnyObject) -> [AnyObject]
}

/// Accesses a `Relationship<Value>` field by offset. For to-one relationships it is a stored
/// field: an optional integer, the destination's primary key.
final class RelationshipFieldAccessor<Value: RelationshipValue>: RelationshipAccessor {
    let name: String
    let ownerOffset: Int
    let entryOffset: Int
    let infoOffset: Int
    let slotOffset: Int
    private let offset: Int
    /// Where `links`, `isResolved` and `value` lie in the object: a decode sets them through
    /// these, as reaching them through `Relationship<Value>` looks up that type's generic
    /// metadata at each call.
    private let linksOffset: Int
    private let keyOffset: Int
    private let isResolvedOffset: Int
    private let heldOffset: Int
    /// `Value(relatedObjects: [])`, made once: making it at each decode looks up the array's
    /// generic metadata. An empty array is immutable, so sharing it is safe.
    nonisolated(unsafe) private let noObjects: Value

    init?(name: String, offset: Int) {
        typealias Wrapper = Relationship<Value>
        guard let owner = MemoryLayout<Wrapper>.offset(of: \Wrapper.owner),
            let entry = MemoryLayout<Wrapper>.offset(of: \Wrapper.entry),
            let info = MemoryLayout<Wrapper>.offset(of: \Wrapper.info),
            let slot = MemoryLayout<Wrapper>.offset(of: \Wrapper.slot),
            let links = MemoryLayout<Wrapper>.offset(of: \Wrapper.links),
            let key = MemoryLayout<Wrapper>.offset(of: \Wrapper.key),
            let isResolved = MemoryLayout<Wrapper>.offset(of: \Wrapper.isResolved),
            let held = MemoryLayout<Wrapper>.offset(of: \Wrapper.value)
        else { return nil }
        self.name = name
        self.offset = offset
        ownerOffset = offset + owner
        entryOffset = offset + entry
        infoOffset = offset + info
        slotOffset = offset + slot
        linksOffset = offset + links
        keyOffset = offset + key
        isResolvedOffset = offset + isResolved
        heldOffset = offset + held
        noObjects = Value(relatedObjects: [])
    }

    var kind: FieldKind { .toOne }

    var valueOffset: Int { offset }

    var type: AttributeType { Value.isToMany ? .data : .integer }
    var isOptional: Bool { true }
    /// The class a to-one `Dog?` reaches is `Dog`, also when `Dog` inherits its conformance
    /// (and so `RelatedModel`, `Animal`) from a superclass.
    var destinationType: any PersistentModel.Type {
        ((Value.self as? any OptionalMarker.Type)?.wrappedType as? any PersistentModel.Type)
            ?? Value.Destination.self
    }
    var isToMany: Bool { Value.isToMany }
    var valueType: Any.Type { Value.self }
    /// Never: a relationship's getter reports its key path itself.
    func holds(_ result: Any, in object: AnyObject) -> Bool { false }

    private func field(_ object: AnyObject) -> UnsafeMutablePointer<Relationship<Value>> {
        Unmanaged.passUnretained(object).toOpaque().advanced(by: offset)
            .assumingMemoryBound(to: Relationship<Value>.self)
    }

    func read(_ object: AnyObject) -> AttributeValue {
        let f = field(object).pointee
        if Value.isToMany {
            guard f.isResolved else { return LinkList.value(f.storedLinks) }
            // Links to objects deleted since stay until a rule or the app removes them: the
            // value a rollback restores must be the one read.
            return LinkList.value(
                f.value.relatedObjects.lazy.map(\.persistentModelID).filter { !$0.isTemporary }
                    .map(\.primaryKey))
        }
        if f.isResolved {
            guard let target = f.value.relatedObjects.first, !target.isDeleted,
                case let id = target.persistentModelID, !id.isTemporary
            else { return .null }
            return .integer(Int64(bitPattern: id.primaryKey))
        }
        return f.key == 0 ? .null : .integer(Int64(bitPattern: f.key))
    }

    func write(_ object: AnyObject, _ value: AttributeValue) -> Bool {
        if Value.isToMany {
            guard let keys = LinkList.keys(value) else { return false }
            setLinks(object, keys)
            return true
        }
        switch value {
        case .null: field(object).pointee.key = 0
        case .integer(let v): field(object).pointee.key = UInt64(bitPattern: v)
        default: return false
        }
        field(object).pointee.isResolved = false
        field(object).pointee.value = Value(relatedObjects: [])
        return true
    }

    func encode(_ object: AnyObject, into w: inout ByteWriter) -> Bool {
        let v = read(object)
        if v.isNull { return false }
        w.value(v, as: .integer)
        return true
    }

    /// A stored to-many's links, not resolved to objects until the relationship is read.
    private func setLinks(_ object: AnyObject, _ keys: [UInt64]) {
        if let packed = PackedLinks.pack(keys) {
            setLinks(object, packed: packed)
            return
        }
        let base = Unmanaged.passUnretained(object).toOpaque()
        (base + keyOffset).assumingMemoryBound(to: UInt64.self).pointee = 0
        (base + linksOffset).assumingMemoryBound(to: [UInt64].self).pointee = keys
        (base + isResolvedOffset).assumingMemoryBound(to: Bool.self).pointee = false
        (base + heldOffset).assumingMemoryBound(to: Value.self).pointee = noObjects
    }

    /// ``setLinks(_:_:)`` of keys packed into one word (``PackedLinks``): no array is kept.
    @inline(__always)
    private func setLinks(_ object: AnyObject, packed: UInt64) {
        let base = Unmanaged.passUnretained(object).toOpaque()
        (base + keyOffset).assumingMemoryBound(to: UInt64.self).pointee = packed
        let links = (base + linksOffset).assumingMemoryBound(to: [UInt64].self)
        if !links.pointee.isEmpty { links.pointee = [] }
        (base + isResolvedOffset).assumingMemoryBound(to: Bool.self).pointee = false
        (base + heldOffset).assumingMemoryBound(to: Value.self).pointee = noObjects
    }

    func decode(_ r: inout ByteReader, into object: AnyObject) throws {
        if Value.isToMany {
            // The link list read where it lies in the record (a `data` value): no `Data` or
            // `AttributeValue` is made per object, as `write` would need; a few small keys are
            // packed into the field's word, with no array either.
            let raw = try r.lengthPrefixed()
            if let packed = PackedLinks.pack(raw) {
                setLinks(object, packed: packed)
                return
            }
            guard let keys = LinkList.keys(raw) else { throw ByteReader.Truncated() }
            setLinks(object, keys)
            return
        }
        _ = write(object, .integer(try r.zigzag()))
    }

    func deleteRule(_ object: AnyObject) -> DeleteRule { field(object).pointee.deleteRule }
    func originalName(_ object: AnyObject) -> String? { field(object).pointee.originalName }
    func inverseKeyPath(_ object: AnyObject) -> AnyKeyPath? { field(object).pointee.inverse }

    func loadedTarget(_ object: AnyObject) -> AnyObject? {
        let f = field(object).pointee
        return f.isResolved ? f.value.relatedObjects.first : nil
    }

    func setTarget(_ object: AnyObject, _ target: AnyObject?) {
        let typed = (target as? Value.Destination).map { [$0] } ?? []
        field(object).pointee.value = Value(relatedObjects: typed)
        field(object).pointee.isResolved = true
        field(object).pointee.key = typed.first?.persistentModelID.primaryKey ?? 0
    }

    func setMembers(_ object: AnyObject, _ members: [AnyObject]) {
        let typed = members.compactMap { $0 as? Value.Destination }
        field(object).pointee.value = Value(relatedObjects: typed)
        field(object).pointee.isResolved = true
        field(object).pointee.links = []
        field(object).pointee.key = 0
    }

    func setProbeTarget(_ object: AnyObject, _ target: AnyObject) {
        guard !Value.isToMany, let typed = target as? Value.Destination else { return }
        field(object).pointee.value = Value(relatedObjects: [typed])
        field(object).pointee.isResolved = true
    }

    func takeEarlyMembers(_ object: AnyObject) -> [AnyObject] {
        guard Value.isToMany else { return [] }
        let members = field(object).pointee.value.relatedObjects
        field(object).pointee.value = Value(relatedObjects: [])
        return members
    }
}
