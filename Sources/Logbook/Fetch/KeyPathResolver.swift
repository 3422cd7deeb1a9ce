import Foundation
import LogStore

/// Finds which attribute or relationship a key path of a model class reads, by applying it to
/// a probe object whose `@Attribute` and `@Relationship` getters report themselves. Only a key
/// path that is exactly one field (`\Employee.salary`, not `\Employee.name.count`) resolves to
/// it. What a key path reads is a property of the class, so it is found once per class and key
/// path and kept (the probe is made only then).
///
/// Not thread-safe (the probe): one resolver per use; the cache it consults is shared.
final class KeyPathResolver {
    private let binding: EntityBinding
    private var probing: (probe: AnyObject, record: ProbeRecord, table: ObjectTable)?

    init(binding: EntityBinding) {
        self.binding = binding
    }

    deinit {
        if let probing { binding.adopt(probing.probe, table: nil, entry: -1) }
    }

    /// The entity's binding.
    var entityBinding: EntityBinding { binding }

    /// What a key path of a class reads.
    private enum Reading: Sendable {
        /// Exactly the field of this name (an attribute or a relationship).
        case field(String)
        /// The object's `persistentModelID`.
        case identifier
        /// Something computed; `attributesOnly` when it read attributes and nothing else.
        case derived(attributesOnly: Bool)
    }

    private struct Key: Hashable, @unchecked Sendable {  // key paths are immutable
        let type: ObjectIdentifier
        let keyPath: AnyKeyPath
    }

    private static let readings = Locked<[Key: Reading]>([:])

    /// The readings this resolver found, by key path object (kept here, so its identifier is
    /// not reused while it is a key). A query repeated in a loop applies the same key path
    /// objects (the runtime makes a key path literal once), and this answers them without
    /// hashing the key path or taking the shared cache's lock; other key paths take that way.
    // Unchecked exclusivity: a resolver is used by one caller at a time (see the type).
    @exclusivity(unchecked) private var seen:
        [ObjectIdentifier: (keyPath: AnyKeyPath, reading: Reading?)] = [:]

    private func reading(_ keyPath: AnyKeyPath) -> Reading? {
        let id = ObjectIdentifier(keyPath)
        if let known = seen[id] { return known.reading }
        let found = sharedReading(keyPath)
        // Key paths built at run time are new objects each time: bound what they leave here.
        if seen.count >= 64 { seen.removeAll() }
        seen[id] = (keyPath, found)
        return found
    }

    private func sharedReading(_ keyPath: AnyKeyPath) -> Reading? {
        guard let layout = binding.layout else { return nil }
        let key = Key(type: ObjectIdentifier(layout.modelType), keyPath: keyPath)
        if let known = Self.readings.withLock({ $0[key] }) { return known }
        let found = probe(keyPath, layout)
        Self.readings.withLock { $0[key] = found }
        return found
    }

    /// Applies `keyPath` to the probe object and tells what it read.
    private func probe(_ keyPath: AnyKeyPath, _ layout: ModelLayout) -> Reading {
        if probing == nil {
            let record = ProbeRecord()
            let probe = binding.makeObject()
            let table = ObjectTable(bindings: [binding], probe: record)
            binding.adopt(probe, table: table, entry: 0, probe: true)
            probing = (probe, record, table)
        }
        // Invariant: set above.
        let (probe, record, _) = probing!
        record.slot = Int.min
        record.keyPath = nil
        record.slots.removeAll()
        _ = (probe as Any)[keyPath: keyPath]
        if record.slot != Int.min, let name = name(ofSlot: record.slot),
            record.keyPath.map({ $0 == keyPath })
                ?? isAttribute(keyPath, slot: record.slot, record: record, probe: probe)
        {
            return .field(name)
        }
        if record.slot != Int.min, record.keyPath == nil,
            let field = compositeField(keyPath, slot: record.slot, record: record, probe: probe)
        {
            return .field(field)
        }
        let type = type(of: keyPath).valueType
        if type == PersistentIdentifier?.self || type == PersistentIdentifier.self,
            keyPath == Self.identifierKeyPath(layout.modelType)
        {
            return .identifier
        }
        let attributes = binding.entity.attributes.count
        return .derived(
            attributesOnly: !record.slots.isEmpty
                && record.slots.allSatisfy { $0 >= 0 && $0 < attributes })
    }

    /// Whether `keyPath`, which read only the attribute at `slot`, is that attribute itself:
    /// its value has the property's type and is the stored value, for two different stored
    /// values. (`\.name` is; `\.name.count`, `\.salaryInCents` or a property that reads the
    /// attribute and changes it are not.) Attribute getters do not report their key path: making
    /// it at every read would cost every app's reads.
    private func isAttribute(
        _ keyPath: AnyKeyPath, slot: Int, record: ProbeRecord, probe: AnyObject
    ) -> Bool {
        guard slot >= 0, slot < binding.attributeCount, record.slots.allSatisfy({ $0 == slot })
        else { return false }
        let field = binding.storedField(slot)
        guard type(of: keyPath).valueType == field.valueType, let (a, b) = field.sentinels else {
            return false
        }
        for sentinel in [a, b] {
            guard field.write(probe, sentinel), let result = (probe as Any)[keyPath: keyPath],
                field.holds(result, in: probe)
            else { return false }
        }
        return true
    }

    /// The field of the composite attribute at `slot` that `keyPath` (which read only that
    /// attribute) reads, if it reads exactly one (`\.address.city`): each field of the key
    /// path's type is set to a value that differs from every other field's, twice over.
    private func compositeField(
        _ keyPath: AnyKeyPath, slot: Int, record: ProbeRecord, probe: AnyObject
    )
        -> String?
    {
        guard slot >= 0, slot < binding.attributeCount, record.slots.allSatisfy({ $0 == slot }),
            binding.stored.attributes[slot].type == .composite,
            let (wholeA, wholeB) = binding.storedField(slot).sentinels
        else { return nil }
        let marker = binding.storedField(slot)
        let valueType = type(of: keyPath).valueType
        for j in binding.stored.compositeFields(of: slot) {
            let field = binding.storedField(j)
            guard field.valueType == valueType, let (a, b) = field.sentinels else { continue }
            var reads = true
            for (whole, own) in [(wholeA, b), (wholeB, a)] {
                guard marker.write(probe, whole), field.write(probe, own),
                    let result = (probe as Any)[keyPath: keyPath], field.holds(result, in: probe)
                else {
                    reads = false
                    break
                }
            }
            if reads { return field.name }
        }
        return nil
    }

    private static func identifierKeyPath<Model: PersistentModel>(_ type: Model.Type) -> AnyKeyPath
    {
        \Model.persistentModelID
    }

    /// The field a probe slot names: a stored position, or `-(2 + r)` for to-many `r`.
    private func name(ofSlot slot: Int) -> String? {
        if slot >= 0 {
            return slot < binding.stored.attributes.count
                ? binding.stored.attributes[slot].name : nil
        }
        let r = -(slot + 2)
        return r >= 0 && r < binding.entity.relationships.count
            ? binding.entity.relationships[r].name : nil
    }

    /// Whether `keyPath` is the object's `persistentModelID`.
    func isIdentifier(_ keyPath: AnyKeyPath) -> Bool {
        if case .identifier? = reading(keyPath) { return true }
        return false
    }

    /// The stored position (an attribute's, or a to-one relationship's key) `keyPath` reads,
    /// or `nil`.
    func attributeIndex(_ keyPath: AnyKeyPath) -> Int? {
        guard case .field(let name)? = reading(keyPath) else { return nil }
        return binding.stored.attributeIndex(name)
    }

    /// What `keyPath` is as one side of a comparison, from one look-up of what it reads: the
    /// primary key, the stored position of an attribute or of a to-one relationship's key
    /// (as ``isIdentifier(_:)``, ``attributeIndex(_:)`` and ``toOne(_:)`` tell, in that
    /// order), or `nil`.
    func operand(_ keyPath: AnyKeyPath) -> FilterOperand? {
        switch reading(keyPath) {
        case .identifier?: return .primaryKey
        case .field(let name)?:
            if let index = binding.stored.attributeIndex(name) {
                // A to-one relationship's key is a stored field too: its position, as
                // `toOne` gives it.
                return .attribute(index)
            }
            return nil
        default: return nil
        }
    }

    /// The name of the attribute or relationship `keyPath` reads, or `nil`.
    func fieldName(_ keyPath: AnyKeyPath) -> String? {
        guard case .field(let name)? = reading(keyPath) else { return nil }
        return name
    }

    /// The stored slot and destination of the to-one relationship `keyPath` reads, or `nil`.
    func toOne(_ keyPath: AnyKeyPath) -> (slot: Int, destination: String)? {
        guard let name = fieldName(keyPath),
            let r = binding.entity.relationships.firstIndex(where: { $0.name == name }),
            !binding.entity.relationships[r].isToMany
        else { return nil }
        return (binding.relationshipSlots[r], binding.entity.relationships[r].destination)
    }

    /// The position among the entity's relationships, and the destination, of the to-many
    /// relationship `keyPath` reads, or `nil`.
    func toMany(_ keyPath: AnyKeyPath) -> (relationship: Int, destination: String)? {
        guard let name = fieldName(keyPath),
            let r = binding.entity.relationships.firstIndex(where: { $0.name == name }),
            binding.entity.relationships[r].isToMany
        else { return nil }
        return (r, binding.entity.relationships[r].destination)
    }

    /// Whether stored field `i` is a composite attribute (its marker).
    func isComposite(_ i: Int) -> Bool {
        i >= 0 && i < binding.attributeCount && binding.stored.attributes[i].type == .composite
    }

    /// The stored position of the field of the composite at `slot` that `keyPath` (rooted at
    /// the composite's type: `\Address.city`) reads, or `nil`.
    func compositeField(_ keyPath: AnyKeyPath, of slot: Int) -> Int? {
        guard isComposite(slot), binding.layout != nil,
            let marker = binding.storedField(slot) as? any CompositeMarker,
            let key = marker.composite?.fieldKey(reachedBy: keyPath)
        else { return nil }
        return binding.stored.attributeIndex(binding.stored.attributes[slot].name + "." + key)
    }

    /// What `keyPath` (rooted at the array or set at stored field `i`) reads of it.
    func collectionMember(_ keyPath: AnyKeyPath, of i: Int) -> CollectionMember? {
        guard i >= 0, i < binding.attributeCount, binding.stored.attributes[i].type.isCollection,
            binding.layout != nil,
            let collection = binding.storedField(i).valueType as? any CollectionMarker.Type
        else { return nil }
        if keyPath == collection.countKeyPath { return .count }
        if keyPath == collection.isEmptyKeyPath { return .isEmpty }
        return nil
    }

    /// A member of a collection a predicate reads.
    enum CollectionMember { case count, isEmpty }

    /// What reading `keyPath` on an object touches.
    enum Reads {
        /// Only attributes (values a record holds).
        case attributes
        /// A relationship, or something of the object's registration (its identifier,
        /// context): what a scratch object cannot answer.
        case more
    }

    /// What `keyPath` reads when applied to an object of the entity.
    func reads(_ keyPath: AnyKeyPath) -> Reads {
        switch reading(keyPath) {
        case .field(let name)?:
            return binding.entity.attributeIndex(name) != nil ? .attributes : .more
        case .derived(let attributesOnly)?:
            return attributesOnly ? .attributes : .more
        case .identifier?, nil:
            return .more
        }
    }
}
