import LogStore
import Observation

/// An object a ``ModelContext`` manages: an instance of a ``PersistentModel`` class, or a
/// ``ManagedObject``. Gives both key-value access by attribute name and their identity.
///
/// Thread safety: like its context, an object belongs to one thread or actor at a time.
public protocol ModelObject: AnyObject {}

/// A class whose instances are stored objects of one entity.
///
/// ```swift
/// final class Employee: PersistentModel {
///     @Attribute var name = ""
///     @Attribute(.indexed) var designation = ""
///     @Attribute var salary: Int64 = 0
///     init() {}
/// }
/// ```
/// Attributes are the `@Attribute` stored properties, in declaration order; `init()` gives
/// their defaults. A default that is the same in every new instance (`""`, `0`, `true`) is
/// recorded in the schema and fills the attribute in objects stored before it existed; one
/// that is not (`Date()`, `UUID()`) is not recorded.
///
/// A subclass of a model class (`class Animal`, with `required init()`; `final class Dog:
/// Animal`) is an entity of its own that stores the inherited attributes and relationships
/// too. When both classes are in the container, the subclass's entity is a sub-entity
/// (``Entity/superentity``): a fetch of `Animal` returns the dogs as well, each a `Dog`;
/// predicates and sorts on `Animal`'s properties apply to them; a relationship to `Animal`
/// may hold a `Dog`.
public protocol PersistentModel: ModelObject, Hashable, Observable, OptionalRelationshipContent {
    /// The class a to-one relationship to this class reaches: the class itself.
    associatedtype RelatedModel = Self
    /// A new object with default values; Logbook calls it to build fetched objects.
    init()
    /// The entity's name (default: the class name). It names the keyspace, so keep it stable.
    static var entityName: String { get }
    /// The class whose key paths ``indexes`` names: the class itself. (An associated type,
    /// not `Self`, so that a non-final model class can conform; its subclasses inherit its
    /// indexes.)
    associatedtype IndexRoot: PersistentModel = Self
    /// Indexes and unique constraints over several properties (default: none; single
    /// properties take `@Attribute(.indexed)` or `@Attribute(.unique)`).
    static var indexes: [ModelIndex<IndexRoot>] { get }
    /// What a save does with an insert that repeats another object's unique values (default
    /// ``UniquePolicy/error``).
    static var uniquePolicy: UniquePolicy { get }
}

extension PersistentModel {
    /// The class name.
    public static var entityName: String { ClassNames.name(of: self) }
    /// None.
    public static var indexes: [ModelIndex<IndexRoot>] { [] }
    /// ``UniquePolicy/error``.
    public static var uniquePolicy: UniquePolicy { .error }

    /// Identity: one object per identifier per context makes it the identifier's equality
    /// there. (What lets `#Predicate` compare a to-one relationship with `nil`.)
    public static func == (a: Self, b: Self) -> Bool { a === b }

    /// Hashes the object's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

extension ModelObject {
    /// The object's identifier. Before the object is inserted into a context it is a
    /// temporary one (``PersistentIdentifier/isTemporary``); inserting it gives it its
    /// permanent identifier, which it keeps.
    public var persistentModelID: PersistentIdentifier {
        // The common case without retaining anything: a registered instance of the class the
        // latest layout lookup found (an object's anchor holds its table while it lives).
        if let found = ModelLayout.withLatest(
            for: type(of: self),
            { layout in
                layout.withTable(of: self) { table, entry in
                    table.probe == nil && entry >= 0 ? table.identifier(of: entry) : nil
                }
            }),
            let id = found
        {
            return id
        }
        guard let r = registered else {
            return PersistentIdentifier(temporaryFor: self, entityName: entityName)
        }
        return PersistentIdentifier(
            entityName: r.binding.entity.name, primaryKey: r.table.entries[r.index].primaryKey)
    }

    /// The context the object is registered in, or `nil`.
    public var modelContext: ModelContext? { registered?.table.context }

    /// Whether the object is deleted in its context: its deletion is pending, or was saved.
    public var isDeleted: Bool {
        guard let r = registered else { return false }
        let state = r.table.entries[r.index].state
        return state == .deleted || state == .gone
    }

    /// Whether the object has changes its context has not saved: it is a pending insert, has
    /// changed values, or its deletion is pending.
    public var hasChanges: Bool {
        guard let r = registered else { return false }
        let entry = r.table.entries[r.index]
        switch entry.state {
        case .inserted, .deleted: return true
        case .persisted: return entry.isChanged
        case .gone, .free: return false
        }
    }

    /// The entity's name.
    public var entityName: String {
        if let managed = self as? ManagedObject { return managed.binding.entity.name }
        return (type(of: self) as? any PersistentModel.Type)?.entityName
            ?? String(describing: type(of: self))
    }

    /// The value of the attribute `key`: a `String`, `Int64`, `Double`, `Bool`, `Date`, `Data`,
    /// `UUID`, or `nil`.
    /// - Throws: ``LogbookError/unknownAttribute(entity:attribute:)``.
    /// For a relationship: the related object (to-one, or `nil`) or objects (to-many, an
    /// `[any ModelObject]`), read through the object's context.
    public func value(forKey key: String) throws -> Any? {
        if let r = registered,
            let index = r.binding.entity.relationships.firstIndex(where: { $0.name == key })
        {
            guard let context = r.table.context else { return nil }
            let related = try context.relatedObjects(of: self, r.entry, relationship: index)
                .compactMap { $0 as? any ModelObject }
            return r.binding.entity.relationships[index].isToMany ? related : related.first
        }
        return try attributeValue(forKey: key).anyValue
    }

    /// The value of the attribute `key` as an ``AttributeValue``.
    /// - Throws: ``LogbookError/unknownAttribute(entity:attribute:)``.
    public func attributeValue(forKey key: String) throws -> AttributeValue {
        let access = try ObjectAccess(self)
        return access.read(try access.index(of: key))
    }

    /// Sets the attribute `key` and marks the object changed in its context. Integers of any
    /// width convert to `Int64` (and to `Double` for double attributes); nothing else converts.
    /// - Throws: ``LogbookError/unknownAttribute(entity:attribute:)``,
    ///   ``LogbookError/typeMismatch(entity:attribute:expected:found:)`` (also for `nil` on a
    ///   non-optional attribute of a class).
    /// For a relationship, `value` is a ``ModelObject`` of the destination or `nil` (to-one),
    /// or an array of them (to-many); objects not in the context yet are inserted.
    public func setValue(_ value: Any?, forKey key: String) throws {
        if let r = registered,
            let index = r.binding.entity.relationships.firstIndex(where: { $0.name == key })
        {
            try setRelationship(value, r, relationship: index)
            return
        }
        let access = try ObjectAccess(self)
        let index = try access.index(of: key)
        let attribute = access.entity.attributes[index]
        guard let converted = AttributeValue.converting(value, to: attribute.type) else {
            throw LogbookError.typeMismatch(
                entity: access.entity.name, attribute: key, expected: attribute.type.description,
                found: value.map { String(describing: type(of: $0)) } ?? "nil")
        }
        try access.write(index, converted)
    }

    /// Key-value access that cannot throw: reading an unknown key gives `nil`; a failed write
    /// (unknown key, wrong type) is kept and thrown by the next ``ModelContext/save()``, or
    /// dropped for an object outside a context. Use ``setValue(_:forKey:)`` to see the error at once.
    public subscript(key: String) -> Any? {
        get { try? value(forKey: key) }
        set {
            do {
                try setValue(newValue, forKey: key)
            } catch let error as LogbookError {
                if let r = registered { r.table.recordFailure(error, r.entry) }
            } catch {}
        }
    }

    private func setRelationship(_ value: Any?, _ r: Registration, relationship index: Int) throws {
        let binding = r.binding
        let relationship = binding.entity.relationships[index]
        guard let context = r.table.context else {
            throw LogbookError.notRegistered(
                entity: binding.entity.name, object: persistentModelID.description)
        }
        let objects: [any ModelObject]
        if let many = value as? [any ModelObject] {
            objects = many
        } else if let one = value as? any ModelObject {
            objects = [one]
        } else if value == nil || (value as? any OptionalProtocol)?.isNone == true {
            objects = []
        } else {
            throw LogbookError.typeMismatch(
                entity: binding.entity.name, attribute: relationship.name,
                expected: relationship.destination,
                found: value.map { String(describing: type(of: $0)) } ?? "nil")
        }
        let accepted = Set(
            [relationship.destination]
                + context.core.schema.entities.filter {
                    context.core.schema.ancestorNames(of: $0.name).contains(
                        relationship.destination)
                }.map(\.name))
        for object in objects where !accepted.contains(object.entityName) {
            throw LogbookError.typeMismatch(
                entity: binding.entity.name, attribute: relationship.name,
                expected: relationship.destination,
                found: object.entityName)
        }
        for object in objects where object.registered == nil { context.insertAny(object) }
        if relationship.isToMany {
            context.setMembers(objects, of: self, r.entry, relationship: index)
        } else {
            guard objects.count <= 1 else {
                throw LogbookError.typeMismatch(
                    entity: binding.entity.name, attribute: relationship.name,
                    expected: relationship.destination,
                    found: "\(objects.count) objects")
            }
            context.setToOne(self, binding, index, target: objects.first)
        }
    }

    /// Where a registered object's state is, or `nil` (not registered, or a key-path probe).
    var registered: Registration? {
        let found: (table: ObjectTable, entry: Int32)?
        if let latest = ModelLayout.withLatest(for: type(of: self), { $0.registration(of: self) }) {
            found = latest
        } else if let managed = self as? ManagedObject {
            found = managed.owner.map { ($0, managed.entry) }
        } else if let type = type(of: self) as? any PersistentModel.Type,
            let layout = try? ModelLayout.of(type)
        {
            found = layout.registration(of: self)
        } else {
            found = nil
        }
        guard let (table, entry) = found, table.probe == nil, entry >= 0,
            table[entry].state != .free
        else { return nil }
        return Registration(table: table, entry: entry)
    }
}

/// A registered object's table and entry.
struct Registration {
    let table: ObjectTable
    let entry: Int32
    var index: Int { Int(entry) }
    var binding: EntityBinding { table.bindings[Int(table[entry].entity)] }
}

/// The names of model classes, each worked out once: `String(describing:)` reflects on the
/// type at every call (several hundred nanoseconds), and an app may name an entity at every
/// fetch, as `PersistentIdentifier(entityName: Employee.entityName, primaryKey: id)` does.
enum ClassNames {
    /// The first ``listed`` types in a list, then a dictionary: an app has a few model
    /// classes, and comparing a few words costs less than hashing one.
    private struct Names {
        var list: [(type: ObjectIdentifier, name: String)] = []
        var more: [ObjectIdentifier: String] = [:]

        func name(of id: ObjectIdentifier) -> String? {
            for entry in list where entry.type == id { return entry.name }
            return list.count < ClassNames.listed ? nil : more[id]
        }

        mutating func add(_ id: ObjectIdentifier, _ name: String) {
            guard self.name(of: id) == nil else { return }
            if list.count < ClassNames.listed { list.append((id, name)) } else { more[id] = name }
        }
    }
    private static let listed = 16
    private static let names = Locked(Names())

    static func name(of type: Any.Type) -> String {
        let id = ObjectIdentifier(type)
        if let name = names.withLock({ $0.name(of: id) }) { return name }
        let name = String(describing: type)
        names.withLock { $0.add(id, name) }
        return name
    }
}
