extension ModelContext {
    /// For entities whose unique policy is ``UniquePolicy/upsert``: each pending insert whose
    /// unique values another object already has (stored, or earlier in this save) becomes an
    /// update of that object instead. Runs under the save lock, before the uniqueness check
    /// (which still throws for what is left: changes that clash, or an insert that meets two
    /// different objects).
    ///
    /// - The other object is stored and not registered here: the inserted object takes its
    ///   identifier and becomes it (a change of it).
    /// - It is registered here (stored or inserted earlier): it takes the inserted object's
    ///   values, the inserted object leaves the context, and relationships that pointed at
    ///   the inserted object point at it.
    /// - Throws: ``LogbookError/store(_:)``, ``LogbookError/corruptRecord(entity:key:reason:)``.
    func applyUpserts() throws {
        let indexes = core.indexes
        for binding in core.bindings
        where binding.entity.uniquePolicy == .upsert && indexes.hasUniqueConstraints(binding.index)
        {
            if indexes.failure(of: binding.index) != nil { continue }
            let entity32 = Int32(binding.index)
            let constraints = indexes.definitions[binding.index].enumerated().filter {
                $0.element.isUnique
            }
            var rewritten = Set<UInt64>()
            var holders: [[[UInt8]: Int32]] = Array(repeating: [:], count: constraints.count)
            func keys(_ e: Int32) -> [[UInt8]?] {
                // Invariant: pending entries hold their objects.
                let object = table.objects[Int(e)]!
                return constraints.map { _, definition in
                    UniqueCheck(definition: definition, index: 0, indexes: indexes).prefix {
                        binding.read(object, $0)
                    }
                }
            }
            func hold(_ e: Int32) {
                for (u, key) in keys(e).enumerated() {
                    if let key { holders[u][key] = e }
                }
            }
            for e in table.changed
            where table[e].isChanged && table[e].entity == entity32 {
                rewritten.insert(table[e].primaryKey)
                hold(e)
            }
            for e in table.deleted
            where table[e].state == .deleted
                && table[e].entity == entity32
            {
                rewritten.insert(table[e].primaryKey)
            }
            for e in table.inserted
            where table[e].state == .inserted
                && table[e].entity == entity32
            {
                enum Holder: Equatable {
                    case pending(Int32)
                    case stored(UInt64)
                }
                var target: Holder?
                var ambiguous = false
                for (u, key) in keys(e).enumerated() {
                    guard let key else { continue }
                    let holder: Holder?
                    if let h = holders[u][key] {
                        holder = .pending(h)
                    } else if let pk = indexes.firstStored(
                        binding.index, index: constraints[u].offset, prefixes: [key],
                        excluding: rewritten)[0]
                    {
                        holder = .stored(pk)
                    } else {
                        holder = nil
                    }
                    guard let holder else { continue }
                    if target == nil {
                        target = holder
                    } else if target != holder {
                        ambiguous = true
                    }
                }
                guard let target, !ambiguous else {
                    if !ambiguous { hold(e) }
                    continue
                }
                switch target {
                case .pending(let h):
                    merge(e, into: h, binding)
                    hold(h)
                case .stored(let pk):
                    let known = table.lookup(binding.index, pk)
                    if known >= 0, table[known].state == .persisted {
                        merge(e, into: known, binding)
                        rewritten.insert(pk)
                        hold(known)
                    } else {
                        try becomeStored(e, pk, binding)
                        rewritten.insert(pk)
                        hold(e)
                    }
                }
            }
        }
    }

    /// Gives the pending object `h` every stored value of the pending insert `e`, points what
    /// pointed at `e` at `h`, and forgets `e`.
    private func merge(_ e: Int32, into h: Int32, _ binding: EntityBinding) {
        // Invariant: pending entries hold their objects.
        let source = table.objects[Int(e)]!
        let target = table.objects[Int(h)]!
        for slot in 0..<binding.stored.attributes.count {
            let value = binding.read(source, slot)
            table.willChange(h, slot: slot, object: target)
            binding.write(target, slot, value)
        }
        repoint(from: table[e].primaryKey, to: target, binding)
        table.forget(e)
    }

    /// Turns the pending insert `e` into the stored object `pk`, which it becomes.
    private func becomeStored(_ e: Int32, _ pk: UInt64, _ binding: EntityBinding) throws {
        var saved = binding.stored.attributes.map(\.initialValue)
        let version = try wrapStoreErrors {
            try Keyspaces.objectKey(pk).withUnsafeBytes { key in
                try core.store.withValue(forKey: key, in: binding.keyspace) { raw in
                    try binding.codec.decode(raw, key: String(pk)) { saved[$0] = $1 }
                }
            }
        }
        let inserted = table[e].primaryKey
        table.convertInsert(
            e, toStored: pk, version: version ?? 0, savedValues: saved,
            generation: core.saveGeneration)
        // Invariant: pending entries hold their objects.
        repoint(from: inserted, to: table.objects[Int(e)]!, binding)
    }

    /// Points every pending object's to-one relationship that holds primary key `old` of
    /// `binding`'s entity at `target` instead.
    private func repoint(from old: UInt64, to target: AnyObject, _ binding: EntityBinding) {
        let oldKey = AttributeValue.integer(Int64(bitPattern: old))
        for source in core.bindings {
            let relationships = source.entity.relationships.indices.filter {
                !source.entity.relationships[$0].isToMany
                    && source.entity.relationships[$0].destination == binding.entity.name
            }
            guard !relationships.isEmpty else { continue }
            let entity32 = Int32(source.index)
            let pending =
                table.inserted.filter { table[$0].state == .inserted }
                + table.changed.filter { table[$0].isChanged }
            for e in pending where table[e].entity == entity32 {
                guard let object = table.objects[Int(e)] else { continue }
                for r in relationships
                where source.read(object, source.relationshipSlots[r]) == oldKey {
                    setToOne(object, source, r, target: target)
                }
            }
        }
    }
}
