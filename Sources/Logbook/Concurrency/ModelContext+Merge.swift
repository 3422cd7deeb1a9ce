import LogStore

extension ModelContext {
    /// Brings another commit's changes into the objects registered here, without refetching:
    /// each registered object the commit updated is read again by identifier, each one it
    /// deleted becomes deleted here. Objects not registered here are not read.
    ///
    /// ```swift
    /// for await changes in container.changes() { context.merge(changes) }
    /// ```
    /// What happens to a registered object:
    /// - **Unchanged here**, updated there: takes the stored values and version. Deleted there:
    ///   becomes deleted (``ModelObject/isDeleted``; fetches no longer return it).
    /// - **Deletion pending here**, updated there: left as it is (the save applies
    ///   ``mergePolicy``). Deleted there: the deletion is done; nothing is left to save.
    /// - **Unsaved edits here**, updated there: attributes not edited here take the stored
    ///   values. An edited attribute keeps its edit, unless the other commit changed it too
    ///   (a conflict): then ``MergePolicy/storeWins`` takes the stored value (dropping the
    ///   edit), ``MergePolicy/contextWins`` keeps the edit (the next save writes it over the
    ///   stored one), and ``MergePolicy/error`` leaves the whole object as it was, so that
    ///   the next save throws ``LogbookError/conflict(entity:object:expectedVersion:foundVersion:)``.
    ///   Deleted there: `.storeWins` deletes it here (dropping the edits); `.contextWins` keeps
    ///   it with its edits (the next save stores it again); `.error` keeps it, and the next save
    ///   throws the conflict.
    /// - **Inserted here**: never concerned (identifiers are never shared).
    ///
    /// Merging a commit made by this context, or one already merged, changes nothing. Each
    /// object takes its newest stored version, which may be newer than `changes` (a later
    /// commit's changes then find it up to date).
    /// - Complexity: one hash lookup per identifier, plus one store read and decode per
    ///   registered object updated.
    public func merge(_ changes: SavedChanges) {
        let conflicts = mergePolicy
        for id in changes.deleted {
            guard let (_, e) = registeredEntry(id) else { continue }
            let entry = table[e]
            switch entry.state {
            case .persisted where entry.isChanged && conflicts != .storeWins:
                continue
            case .persisted, .deleted:
                table.markGone(e)
            case .inserted, .gone, .free:
                continue
            }
        }
        var savedValues: [Int32: [Int: AttributeValue]]?
        for id in changes.updated.keys {
            guard let (binding, e) = registeredEntry(id),
                table[e].state == .persisted,
                let object = table.objects[Int(e)]
            else { continue }
            let generation = core.saveGeneration
            var stored = [AttributeValue](repeating: .null, count: binding.stored.attributes.count)
            let version = Keyspaces.withObjectKey(id.primaryKey) { key in
                (try? core.store.withValue(forKey: key, in: binding.keyspace) { raw in
                    try binding.codec.decode(raw, key: id.description) { stored[$0] = $1 }
                }) ?? nil
            }
            // Gone since (a later commit's changes say so), or unreadable: nothing to take.
            guard let version, version > table[e].version else { continue }
            guard table[e].isChanged else {
                for (i, value) in stored.enumerated() {
                    binding.write(object, i, value)
                    table.noteChanged(e, slot: i)
                }
                table[e].version = version
                table[e].readGeneration = generation
                continue
            }
            if savedValues == nil { savedValues = editedSavedValues() }
            let saved = savedValues?[e] ?? [:]
            let conflicting = saved.filter { stored[$0.key] != $0.value }
            if !conflicting.isEmpty && conflicts == .error { continue }
            for (i, value) in stored.enumerated() {
                if let savedValue = saved[i] {
                    // Edited here: the stored value becomes what a rollback restores.
                    if savedValue != value { table.replaceSavedValue(e, slot: i, with: value) }
                    if conflicting[i] == nil || conflicts == .contextWins { continue }
                }
                binding.write(object, i, value)
                table.noteChanged(e, slot: i)
            }
            if conflicts == .storeWins && !conflicting.isEmpty {
                table.dropEdits(e, slots: Set(conflicting.keys))
            }
            table[e].version = version
            table[e].readGeneration = generation
        }
    }

    /// The binding and entry of the object registered here under `id`, if any.
    private func registeredEntry(_ id: PersistentIdentifier) -> (EntityBinding, Int32)? {
        guard let binding = try? core.binding(named: id.entityName),
            table.hasRegistered(binding.index)
        else { return nil }
        let e = table.lookup(binding.index, id.primaryKey)
        return e >= 0 ? (binding, e) : nil
    }

    /// The saved value of every edited field, by entry, then stored position.
    private func editedSavedValues() -> [Int32: [Int: AttributeValue]] {
        var values: [Int32: [Int: AttributeValue]] = [:]
        for change in table.changeLog {
            values[change.entry, default: [:]][Int(change.slot)] = change.value
        }
        return values
    }
}

extension ObjectTable {
    /// Forgets the unsaved edits of fields `slots` of entry `e` (their values are already the
    /// stored ones); an object left with no edit and no failed write is clean again.
    func dropEdits(_ e: Int32, slots: Set<Int>) {
        changeLog.removeAll { $0.entry == e && slots.contains(Int($0.slot)) }
        var remaining: UInt64 = 0
        for change in changeLog where change.entry == e {
            remaining |= change.slot < 63 ? 1 << UInt64(change.slot) : 1 << 63
        }
        self[e].changedSlots = remaining
        if remaining == 0 && failures[e] == nil { markClean(e) }
    }
}
