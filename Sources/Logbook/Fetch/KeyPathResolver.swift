/// Finds which attribute a key path of a model class reads, by applying it to a probe object
/// whose `@Attribute` getters report themselves. Only a key path that is exactly an attribute
/// (`\Employee.salary`, not `\Employee.name.count`) resolves.
final class KeyPathResolver {
    private let probe: AnyObject
    private let record = ProbeRecord()
    private let binding: EntityBinding
    /// Holds the probe's fields' table (the probe names it without retaining it otherwise).
    private let table: ObjectTable

    init(binding: EntityBinding) {
        self.binding = binding
        probe = binding.makeObject()
        table = ObjectTable(bindings: [binding], probe: record)
        binding.adopt(probe, table: table, entry: 0, probe: true)
    }

    deinit { binding.adopt(probe, table: nil, entry: -1) }

    /// The attribute `keyPath` reads, or `nil`.
    func attributeIndex(_ keyPath: AnyKeyPath) -> Int? {
        guard binding.layout != nil else { return nil }
        record.slot = -1
        record.keyPath = nil
        _ = (probe as Any)[keyPath: keyPath]
        guard record.slot >= 0, record.keyPath == keyPath,
            record.slot < binding.stored.attributes.count
        else { return nil }
        return record.slot
    }

    /// The name of the attribute or relationship `keyPath` reads, or `nil`.
    func fieldName(_ keyPath: AnyKeyPath) -> String? {
        guard binding.layout != nil else { return nil }
        record.slot = Int.min
        record.keyPath = nil
        _ = (probe as Any)[keyPath: keyPath]
        guard record.keyPath == keyPath, record.slot != Int.min else { return nil }
        let slot = record.slot
        if slot >= 0 {
            if slot < binding.entity.attributes.count {
                return binding.entity.attributes[slot].name
            }
            // A to-one relationship's stored slot.
            return binding.relationshipSlots.firstIndex(of: slot).map {
                binding.entity.relationships[$0].name
            }
        }
        let r = -(slot + 2)
        return r >= 0 && r < binding.entity.relationships.count
            ? binding.entity.relationships[r].name : nil
    }
}
