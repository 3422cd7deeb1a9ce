/// Finds which attribute a key path of a model class reads, by applying it to a probe object
/// whose `@Attribute` getters report themselves. Only a key path that is exactly an attribute
/// (`\Employee.salary`, not `\Employee.name.count`) resolves.
final class KeyPathResolver {
    private let probe: AnyObject
    private let backing: ModelBacking

    init(binding: EntityBinding) {
        probe = binding.makeObject()
        backing = ModelBacking(
            binding: binding, primaryKey: 0, object: probe, context: nil, state: .inserted,
            version: 0)
        backing.isProbe = true
        binding.adopt(probe, backing)
    }

    /// The attribute `keyPath` reads, or `nil`.
    func attributeIndex(_ keyPath: AnyKeyPath) -> Int? {
        guard backing.binding.layout != nil else { return nil }
        backing.probedSlot = -1
        backing.probedKeyPath = nil
        _ = (probe as Any)[keyPath: keyPath]
        guard backing.probedSlot >= 0, backing.probedKeyPath == keyPath else { return nil }
        return backing.probedSlot
    }

    /// The name of the attribute or relationship `keyPath` reads, or `nil`.
    func fieldName(_ keyPath: AnyKeyPath) -> String? {
        guard backing.binding.layout != nil else { return nil }
        backing.probedSlot = Int.min
        backing.probedKeyPath = nil
        _ = (probe as Any)[keyPath: keyPath]
        guard backing.probedKeyPath == keyPath, backing.probedSlot != Int.min else { return nil }
        let slot = backing.probedSlot
        let binding = backing.binding
        if slot >= 0 {
            return slot < binding.stored.attributes.count
                ? binding.stored.attributes[slot].name : nil
        }
        let r = -(slot + 2)
        return r >= 0 && r < binding.entity.relationships.count
            ? binding.entity.relationships[r].name : nil
    }
}
