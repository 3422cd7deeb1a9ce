/// Keeping the key order of ordered keyspaces (``OrderedKeys``) in step with the index.
extension StoreState {
    /// Declares the keyspaces named in `names` ordered. Their key order is built from their key
    /// directories on first use (``orderedKeys(of:)``), so an open pays nothing for it and
    /// replay nothing either; until then their commits only touch the key directory. A keyspace
    /// defined later with one of these names starts ordered and empty.
    mutating func buildOrder(
        of names: Set<String>, deltaLimit: Int = OrderedKeys.defaultDeltaLimit
    ) {
        guard !names.isEmpty else { return }
        orderedNames = names
        orderedDeltaLimit = deltaLimit
        ordered = Array(repeating: nil, count: directories.count)
    }

    /// The key order of keyspace `id`, built now from its key directory if this is its first use
    /// (a radix sort of its references by their keys' first 16 bytes; the log is read front to
    /// back once); `nil` if the keyspace is not ordered.
    /// - Throws: ``KeyDirectory/DamagedEntry`` from the build (``OrderedKeys/build(from:deltaLimit:_:)``).
    /// - Complexity: O(n) the first time (about 0.3 s for 1M keys), O(1) after.
    mutating func orderedKeys(of id: Int) throws -> OrderedKeys? {
        if ordered[id] != nil {
            ordered[id]!.changesSinceRead = 0
            if ordered[id]!.needsFences { ordered[id]!.buildFences(bases) }
            return ordered[id]
        }
        guard let name = keyspaces.name(of: id), orderedNames.contains(name) else { return nil }
        ordered[id] = try OrderedKeys.build(
            from: directories[id], deltaLimit: orderedDeltaLimit, bases)
        return ordered[id]
    }

    /// Applies a put to the key order of `keyspace` (which has one), or drops the order when
    /// rebuilding it at the next ordered iteration is cheaper (``OrderedKeys/isWorthKeeping``).
    mutating func keepOrder(put ref: RecordRef, keyspace: Int) {
        ordered[keyspace]!.put(ref, bases)
        if !ordered[keyspace]!.isWorthKeeping { ordered[keyspace] = nil }
    }

    /// Applies a delete (of the key whose record was `old`), as ``keepOrder(put:keyspace:)``.
    mutating func keepOrder(removed old: RecordRef, keyspace: Int) {
        ordered[keyspace]!.remove(old, bases)
        if !ordered[keyspace]!.isWorthKeeping { ordered[keyspace] = nil }
    }

    /// Gives every keyspace defined since the last call its (empty) key order if it is ordered.
    mutating func extendOrder() {
        while ordered.count < directories.count {
            let name = keyspaces.name(of: ordered.count) ?? ""
            ordered.append(
                orderedNames.contains(name) ? OrderedKeys(deltaLimit: orderedDeltaLimit) : nil)
        }
    }
}
