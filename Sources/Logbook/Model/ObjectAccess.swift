/// Key-value access to any ``ModelObject``: through its context's entity binding when it is
/// registered, through its class layout when it is not.
struct ObjectAccess {
    let object: AnyObject
    let entity: Entity
    private let registration: Registration?
    private let layout: ModelLayout?

    /// - Throws: ``LogbookError/invalidSchema(_:)`` for a class that cannot be reflected.
    init(_ object: some ModelObject) throws {
        self.object = object
        if let managed = object as? ManagedObject {
            registration = object.registered
            layout = nil
            entity = managed.binding.entity
        } else if let type = type(of: object) as? any PersistentModel.Type {
            let layout = try ModelLayout.of(type)
            self.layout = layout
            registration = object.registered
            entity = registration?.binding.entity ?? layout.entity
        } else {
            throw LogbookError.invalidSchema(
                "\(type(of: object)) is neither a PersistentModel nor a ManagedObject")
        }
    }

    /// - Throws: ``LogbookError/unknownAttribute(entity:attribute:)``.
    func index(of key: String) throws -> Int {
        guard let i = entity.attributeIndex(key) else {
            throw LogbookError.unknownAttribute(entity: entity.name, attribute: key)
        }
        return i
    }

    func read(_ index: Int) -> AttributeValue {
        if let registration {
            if registration.table.entries[registration.index].isPartial {
                registration.table.fulfill(registration.entry, object)
            }
            return registration.binding.read(object, index)
        }
        if let managed = object as? ManagedObject { return managed.values[index] }
        return layout?.fields.first { $0.name == entity.attributes[index].name }?.read(object)
            ?? .null
    }

    /// Writes a value already converted to the attribute's type (or `null`).
    /// - Throws: ``LogbookError/typeMismatch(entity:attribute:expected:found:)`` for `null` on a
    ///   non-optional attribute of a class.
    func write(_ index: Int, _ value: AttributeValue) throws {
        let attribute = entity.attributes[index]
        let mismatch = LogbookError.typeMismatch(
            entity: entity.name, attribute: attribute.name, expected: attribute.type.description,
            found: "nil")
        if let registration {
            let binding = registration.binding
            guard binding.canHold(value, at: index) else { throw mismatch }
            registration.table.willChange(registration.entry, slot: index, object: object)
            binding.write(object, index, value)
        } else if let managed = object as? ManagedObject {
            managed.values[index] = value
        } else if let field = layout?.fields.first(where: { $0.name == attribute.name }) {
            guard field.write(object, value) else { throw mismatch }
        }
    }
}
