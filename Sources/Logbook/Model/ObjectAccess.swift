/// Key-value access to any ``ModelObject``: through its context's entity binding when it is
/// registered, through its class layout when it is not.
struct ObjectAccess {
    let object: AnyObject
    let entity: Entity
    private let backing: ModelBacking?
    private let layout: ModelLayout?

    /// - Throws: ``LogbookError/invalidSchema(_:)`` for a class that cannot be reflected.
    init(_ object: some ModelObject) throws {
        self.object = object
        if let managed = object as? ManagedObject {
            backing = managed.backing
            layout = nil
            entity = managed.backing.binding.entity
        } else if let type = type(of: object) as? any PersistentModel.Type {
            let layout = try ModelLayout.of(type)
            self.layout = layout
            backing = layout.fields[0].owner(object)
            entity = backing?.binding.entity ?? layout.entity
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
        if let backing { return backing.binding.read(object, index) }
        return layout?.fields[index].read(object) ?? .null
    }

    /// Writes a value already converted to the attribute's type (or `null`).
    /// - Throws: ``LogbookError/typeMismatch(entity:attribute:expected:found:)`` for `null` on a
    ///   non-optional attribute of a class.
    func write(_ index: Int, _ value: AttributeValue) throws {
        let attribute = entity.attributes[index]
        if let backing {
            guard backing.binding.canHold(value, at: index) else {
                throw LogbookError.typeMismatch(
                    entity: entity.name, attribute: attribute.name,
                    expected: attribute.type.description,
                    found: "nil")
            }
            backing.willChange()
            backing.binding.write(object, index, value)
        } else if let layout {
            guard layout.fields[index].write(object, value) else {
                throw LogbookError.typeMismatch(
                    entity: entity.name, attribute: attribute.name,
                    expected: attribute.type.description,
                    found: "nil")
            }
        }
    }
}
