import LogStore

extension ModelContainer {
    /// Every index of the store's entities with its entry count and memory: one per attribute
    /// marked `indexed` or `unique`, one per declared compound index, one per to-one
    /// relationship. Each holds one entry per stored object.
    /// - Complexity: O(indexes + chunks of index memory).
    public func indexStatistics() -> [IndexStatistics] { core.indexes.statistics() }

    /// Whether opening read every index from the store's sidecar, decoding no record.
    package var indexesReadFromSidecar: Bool { core.indexes.readFromSidecar }

    /// Why the indexes were not all read from the sidecar at open, or what the check of its
    /// chunks at their first use found wrong; `nil` when all is well.
    package var indexSidecarNote: String? { core.indexes.sidecarNote }

    /// How the indexes differ from the ones the stored records give (empty when they are
    /// exact): for tests and consistency checks. Waits for saves in progress.
    /// - Throws: ``LogbookError/store(_:)``.
    package func indexProblems() throws -> [String] {
        try core.saveLock.withLock { _ in try core.indexes.problems(in: core.store, core.bindings) }
    }

    /// How the text indexes differ from the ones the stored records give (empty when they are
    /// exact): for tests and consistency checks. Waits for saves in progress.
    /// - Throws: ``LogbookError/store(_:)``, ``LogbookError/corruptRecord(entity:key:reason:)``.
    package func textIndexProblems() throws -> [String] {
        try core.saveLock.withLock { _ in try core.indexes.textProblems() }
    }

    /// Whether opening read every text index from the store's text sidecar.
    package var textIndexesReadFromSidecar: Bool { core.indexes.textReadFromSidecar }

    /// Why the text indexes were not all read from the text sidecar, or what the check of its
    /// chunks found; `nil` when all is well.
    package var textIndexSidecarNote: String? { core.indexes.textSidecarNote }
}

extension ContainerIndexes {
    /// Rebuilds each entity's text index from its records and compares them with these.
    func textProblems() throws -> [String] {
        try withLockedText { text in try text.problems() }
    }

    /// Whether opening read every text index from the sidecar (all its chunks checked first).
    var textReadFromSidecar: Bool {
        withLockedText { text in
            text.checkAllLoaded()
            return text.allRead
        }
    }

    /// What opening found about the text sidecar, or what the check of its chunks found.
    var textSidecarNote: String? {
        withLockedText { text in
            text.checkAllLoaded()
            return text.note
        }
    }

    /// Rebuilds each entity's indexes from its records and compares them with these.
    func problems(in store: LogStore, _ bindings: [EntityBinding]) throws -> [String] {
        var problems: [String] = []
        for binding in bindings where makers[binding.index] != nil {
            let maker = makers[binding.index]!
            var lists = maker.emptyLists
            try wrapStoreErrors {
                try store.forEach(in: binding.keyspace) { key, value in
                    guard let pk = Keyspaces.primaryKey(ofObjectKey: key) else { return }
                    try maker.appendEntries(record: value, pk: pk, to: &lists)
                }
            }
            // The body only reads and returns (it may run twice: see `withIndexes`).
            problems += withIndexes(of: binding.index) { indexes -> [String] in
                guard let indexes else { return ["\(binding.entity.name): indexes unavailable"] }
                var problems: [String] = []
                for (i, list) in lists.enumerated() {
                    var expected: [[UInt8]] = []
                    list.sorted().forEach { expected.append(Array($0)) }
                    var found: [[UInt8]] = []
                    indexes[i].forEach(from: indexes[i].start, to: indexes[i].end) {
                        found.append(Array($0))
                        return true
                    }
                    if found != expected || indexes[i].count != expected.count {
                        let missing = Set(expected).subtracting(found).count
                        let extra = Set(found).subtracting(expected).count
                        problems.append(
                            "\(definitions[binding.index][i].name): \(found.count) entries, "
                                + "\(expected.count) expected (\(missing) missing, \(extra) extra)")
                    }
                }
                return problems
            }
        }
        return problems
    }
}
