import Observation

/// The root of the key paths a context's `ObservationRegistrar` hears of: one per property of
/// each entity (`\ObservedProperties.[property: code]`). A model's getters report a read with
/// these, and its context reports a change with the same key path, whatever made it: a
/// mutation, ``ModelContext/rollback()``, a merge or a batch update.
///
/// The granularity is a property of an entity in a context: a change to Ann's `salary` is
/// also a change, for an observer, to Bob's. (A key path per object would cost an allocation
/// at every read of a fetched object; an observer that hears of a change reads its values
/// again and finds them equal.)
final class ObservedProperties: Observable, Sendable {
    static let subject = ObservedProperties()

    subscript(property code: Int) -> Int { code }

    /// The key paths of an entity's properties: its stored fields in order, then one per
    /// relationship that is not stored (the derived side of a to-many), at `stored + r`.
    static func keyPaths(entity: Int, count: Int) -> [KeyPath<ObservedProperties, Int>] {
        (0..<count).map { \ObservedProperties.[property: entity << 16 | $0] }
    }
}

/// What a context's table reports to Observation, by entity and property, in arrays of plain
/// words: every read of a registered object's field and every change report uses it, in or
/// out of a tracking scope, so they retain nothing.
struct ObservedTable {
    /// Each property's key path, unretained (the bindings hold them).
    private(set) var keyPaths: [Unmanaged<KeyPath<ObservedProperties, Int>>] = []
    /// Each stored field's derived inverse (``EntityBinding/derivedInverses``), `nil` for
    /// other fields and past the stored ones.
    private(set) var inverses: [(entity: Int, property: Int)?] = []
    /// Where each entity's properties start: entity `i`'s are at `starts[i]..<starts[i + 1]`.
    private var starts = [0]

    init(_ bindings: [EntityBinding]) {
        for binding in bindings {
            keyPaths += binding.observedKeyPaths.map { Unmanaged.passUnretained($0) }
            inverses += binding.observedKeyPaths.indices.map {
                $0 < binding.derivedInverses.count ? binding.derivedInverses[$0] : nil
            }
            starts.append(keyPaths.count)
        }
    }

    /// Where property `property` of entity `entity` is, if it has one.
    @inline(__always)
    func position(entity: Int, property: Int) -> Int? {
        let k = starts[entity] + property
        return k < starts[entity + 1] ? k : nil
    }
}

extension ObjectTable {
    /// Tells the registrar a field of entry `e` was read (nothing unless it is within
    /// `withObservationTracking`).
    @inline(__always)
    func observeRead(_ e: Int32, property: Int) {
        guard probe == nil, e >= 0,
            let k = observed.position(entity: Int(self[e].entity), property: property)
        else { return }
        observed.keyPaths[k]._withUnsafeGuaranteedRef { keyPath in
            registrar.access(observedSubject, keyPath: keyPath)
        }
    }

    /// Tells the registrar that property `property` of entity `entity` changed.
    func noteChanged(entity: Int, property: Int) {
        guard probe == nil, let k = observed.position(entity: entity, property: property) else {
            return
        }
        observed.keyPaths[k]._withUnsafeGuaranteedRef { keyPath in
            registrar.willSet(observedSubject, keyPath: keyPath)
            registrar.didSet(observedSubject, keyPath: keyPath)
        }
    }

    /// Tells the registrar that stored field `slot` of entry `e` changed, and, for a stored
    /// relationship, that the derived inverse of its destination may have.
    func noteChanged(_ e: Int32, slot: Int) {
        guard probe == nil else { return }
        let entity = Int(self[e].entity)
        noteChanged(entity: entity, property: slot)
        if let k = observed.position(entity: entity, property: slot),
            let (destination, property) = observed.inverses[k]
        {
            noteChanged(entity: destination, property: property)
        }
    }
}

extension EntityBinding {
    /// For each stored field, the destination entity and property of its derived inverse, for
    /// a stored relationship whose inverse is not stored (`nil` otherwise).
    static func derivedInverses(of entity: Entity, in schema: [Entity])
        -> [(entity: Int, property: Int)?]
    {
        let stored = entity.storedFields
        var result = [(entity: Int, property: Int)?](repeating: nil, count: stored.attributes.count)
        for relationship in entity.storedRelationships {
            guard let slot = stored.attributeIndex(relationship.name),
                let inverse = relationship.inverse,
                let d = schema.firstIndex(where: { $0.name == relationship.destination }),
                let back = schema[d].relationships.firstIndex(where: { $0.name == inverse }),
                !schema[d].relationships[back].isStored
            else { continue }
            result[slot] = (d, schema[d].storedFields.attributes.count + back)
        }
        return result
    }
}

extension FieldInfo {
    /// Called by a registered field's getter: reports the read to the context's registrar.
    /// `property` is the stored position, or for a derived to-many `stored + r`.
    @usableFromInline @inline(never)
    static func observe(_ object: AnyObject, info: UInt32, entry: Int32) {
        table(object, info)?._withUnsafeGuaranteedRef {
            $0.observeRead(entry, property: slot(info))
        }
    }

    /// As ``observe(_:info:entry:)``, for a derived to-many relationship `r`.
    static func observeDerived(_ object: AnyObject, info: UInt32, entry: Int32, relationship r: Int)
    {
        table(object, info)?._withUnsafeGuaranteedRef { table in
            let binding = table.bindings[Int(table[entry].entity)]
            table.observeRead(entry, property: binding.stored.attributes.count + r)
        }
    }
}
