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
/// their defaults. Make the class `final` (properties of superclasses are not reflected).
public protocol PersistentModel: ModelObject {
    /// A new object with default values; Logbook calls it to build fetched objects.
    init()
    /// The entity's name (default: the class name). It names the keyspace, so keep it stable.
    static var entityName: String { get }
}

extension PersistentModel {
    /// The class name.
    public static var entityName: String { String(describing: self) }
}

extension ModelObject {
    /// The object's identifier, or `nil` before it is inserted into a context.
    public var persistentModelID: PersistentIdentifier? {
        resolvedBacking.map { PersistentIdentifier(entityName: $0.binding.entity.name, primaryKey: $0.primaryKey) }
    }

    /// The context the object is registered in, or `nil`.
    public var modelContext: ModelContext? { resolvedBacking?.context }

    /// Whether the object is deleted in its context (pending or saved).
    public var isDeleted: Bool {
        guard let backing = resolvedBacking else { return false }
        return backing.state == .deleted || backing.state == .forgotten
    }

    /// The entity's name.
    public var entityName: String {
        if let managed = self as? ManagedObject { return managed.backing.binding.entity.name }
        return (type(of: self) as? any PersistentModel.Type)?.entityName ?? String(describing: type(of: self))
    }

    /// The value of the attribute `key`: a `String`, `Int64`, `Double`, `Bool`, `Date`, `Data`,
    /// `UUID`, or `nil`.
    /// - Throws: ``LogbookError/unknownAttribute(entity:attribute:)``.
    public func value(forKey key: String) throws -> Any? {
        try attributeValue(forKey: key).anyValue
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
    public func setValue(_ value: Any?, forKey key: String) throws {
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
                resolvedBacking?.recordFailure(error)
            } catch {}
        }
    }

    /// The backing of a registered object.
    var resolvedBacking: ModelBacking? {
        if let managed = self as? ManagedObject { return managed.backing }
        guard let type = type(of: self) as? any PersistentModel.Type,
            let layout = try? ModelLayout.of(type)
        else { return nil }
        return layout.fields[0].owner(self)
    }
}
