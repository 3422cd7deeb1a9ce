/// Finds the attribute of a related object that a key path reads through a to-one relationship
/// (`\Employee.company?.name`): the key path is applied to a probe whose to-one relationships
/// hold probes of their destinations, whose getters report what was read. Like
/// ``KeyPathResolver``, only a key path that is exactly that attribute resolves (checked with two
/// different values), not one that computes something from it.
enum RelatedKeyPath {
    /// What `keyPath` reads: the relationship's stored slot, the destination and the attribute's
    /// position there, and `relationship.attribute` as a name; `nil` if it is not such a path.
    static func resolve(_ keyPath: AnyKeyPath, of binding: EntityBinding, in core: ContainerCore)
        -> (slot: Int, destination: EntityBinding, field: Int, name: String)?
    {
        guard binding.layout != nil else { return nil }
        let sourceRecord = ProbeRecord()
        let source = binding.makeObject()
        binding.adopt(
            source, table: ObjectTable(bindings: [binding], probe: sourceRecord), entry: 0,
            probe: true)
        var probes:
            [(
                relationship: Int, destination: EntityBinding, object: AnyObject,
                record: ProbeRecord
            )] = []
        defer {
            binding.adopt(source, table: nil, entry: -1)
            for probe in probes { probe.destination.adopt(probe.object, table: nil, entry: -1) }
        }
        for (r, relationship) in binding.entity.relationships.enumerated()
        where !relationship.isToMany {
            guard r < binding.relationshipFields.count,
                let destination = try? core.binding(named: relationship.destination),
                destination.layout != nil
            else { continue }
            let record = ProbeRecord()
            let object = destination.makeObject()
            destination.adopt(
                object, table: ObjectTable(bindings: [destination], probe: record), entry: 0,
                probe: true)
            binding.relationshipFields[r].setProbeTarget(source, object)
            probes.append((r, destination, object, record))
        }
        guard !probes.isEmpty else { return nil }
        sourceRecord.slots.removeAll()
        _ = (source as Any)[keyPath: keyPath]
        // Exactly one relationship read on the source, and one attribute on its destination.
        guard let read = sourceRecord.slots.last, Set(sourceRecord.slots).count == 1,
            let probe = probes.first(where: { binding.relationshipSlots[$0.relationship] == read }),
            let field = probe.record.slots.last, Set(probe.record.slots).count == 1,
            field >= 0, field < probe.destination.attributeCount
        else { return nil }
        let accessor = probe.destination.storedField(field)
        guard let (a, b) = accessor.sentinels else { return nil }
        for sentinel in [a, b] {
            guard accessor.write(probe.object, sentinel),
                let result = (source as Any)[keyPath: keyPath],
                accessor.holds(result, in: probe.object)
            else { return nil }
        }
        let relationship = binding.entity.relationships[probe.relationship].name
        return (
            read, probe.destination, field,
            relationship + "." + probe.destination.stored.attributes[field].name
        )
    }
}
