import LogStore

/// The text indexes of a container's entities (one ``TextIndex`` per entity with searchable
/// attributes), read from the store's text sidecar where it still describes the store, else
/// built from the records: the part of ``ContainerIndexes`` that serves search.
///
/// Exactness: like the ordered indexes, they follow the store commit by commit
/// (``ContainerIndexes/commit(_:applying:text:to:durability:)``). An entity whose records could
/// not all be read has none: its searches throw what went wrong.
///
/// Not thread-safe: every member is used under the owning ``ContainerIndexes``' lock.
final class TextIndexSet {
    /// Per binding: the reader of its searchable fields (`nil`: it has no text index).
    let readers: [TextFieldReader?]
    private let bindings: [EntityBinding]
    private let store: LogStore
    // Unchecked exclusivity: read and written under the owner's lock only.
    @exclusivity(unchecked) private var indexes: [TextIndex?]
    /// Why an entity's text index is unavailable.
    private(set) var failures: [LogbookError?]
    /// Per binding: where the checks of its loaded chunks report (`nil` once settled).
    @exclusivity(unchecked) private var checks: [LoadedChunkCheck?]
    /// Whether the indexes changed since they were read from or written to the sidecar.
    var changed = false
    /// What opening found about the sidecar, or what a check of its chunks found.
    private(set) var note: String?
    /// Whether opening read every text index from the sidecar.
    private(set) var allRead = false

    /// Whether no entity has a text index.
    var isEmpty: Bool { readers.allSatisfy { $0 == nil } }

    init(bindings: [EntityBinding], store: LogStore, schemaVersion: UInt32) {
        let readers = bindings.map { TextFieldReader(binding: $0) }
        self.readers = readers
        self.bindings = bindings
        self.store = store
        indexes = Array(repeating: nil, count: bindings.count)
        failures = Array(repeating: nil, count: bindings.count)
        checks = Array(repeating: nil, count: bindings.count)
        guard !isEmpty else { return }
        let loaded = TextIndexSnapshot.load(
            from: store, names: bindings.map(\.entity.name),
            fields: readers.map { $0?.names ?? [] }, schemaVersion: schemaVersion)
        note = loaded.note
        allRead = true
        for e in bindings.indices where readers[e] != nil {
            if let index = loaded.indexes[e] {
                indexes[e] = index
                checks[e] = loaded.checks[e]
                continue
            }
            allRead = false
            changed = true
            build(e)
        }
    }

    /// Builds the text index of entity `e` from its stored records (or records why it cannot).
    private func build(_ e: Int) {
        do {
            // Invariant: called only for entities with searchable attributes.
            indexes[e] = try Self.build(readers[e]!, bindings[e], from: store)
            failures[e] = nil
        } catch {
            indexes[e] = nil
            failures[e] =
                (error as? LogbookError)
                ?? .unsupportedPredicate(
                    "the text index of \(bindings[e].entity.name) could not be built: \(error)")
        }
    }

    /// The text index of `binding`'s records in `store`, built from them.
    /// - Throws: ``LogbookError/corruptRecord(entity:key:reason:)``, ``LogbookError/store(_:)``.
    static func build(_ reader: TextFieldReader, _ binding: EntityBinding, from store: LogStore)
        throws -> TextIndex
    {
        var additions = IndexEntries()
        let document = TextDocument()
        var documents = 0
        var tokens = 0
        try wrapStoreErrors {
            try store.forEach(in: binding.keyspace) { key, value in
                guard let pk = Keyspaces.primaryKey(ofObjectKey: key) else {
                    throw LogbookError.corruptRecord(
                        entity: binding.entity.name, key: "\(key.count) bytes",
                        reason: "a key has 8 bytes")
                }
                document.reset()
                try reader.read(value, pk, into: document)
                documents += 1
                tokens += document.length
                document.appendEntries(key: pk, to: &additions)
            }
        }
        let index = TextIndex()
        try index.apply(removals: IndexEntries(), additions: additions.sorted())
        index.documentCount = documents
        index.tokenCount = tokens
        return index
    }

    /// The text index of `entity`, or `nil` when it has none available.
    @inline(__always)
    func available(_ entity: Int) -> TextIndex? { indexes[entity] }

    /// After a use of `entity`'s text index: if the check of a loaded chunk failed during it,
    /// builds the index from the records instead (the note says why) and returns `true`: what
    /// the use found must be found again.
    func settle(_ entity: Int) -> Bool {
        guard let problem = checks[entity]?.problem else { return false }
        checks[entity] = nil
        allRead = false
        changed = true
        let name = bindings[entity].entity.name
        note =
            "the text index sidecar is damaged (\(problem), in the text index of \(name)): "
            + "it was built from the records"
        build(entity)
        return true
    }

    /// Checks every loaded chunk not checked yet, and settles what they find.
    func checkAllLoaded() {
        for entity in checks.indices where checks[entity] != nil {
            indexes[entity]?.checkAll()
            _ = settle(entity)
        }
    }

    /// The readers of the entities whose text indexes commits must keep (`nil` elsewhere).
    var trackedReaders: [TextFieldReader?] {
        readers.indices.map { indexes[$0] == nil ? nil : readers[$0] }
    }

    /// Applies a committed delta.
    func apply(_ delta: TextDelta) {
        for e in delta.removals.indices {
            guard let index = indexes[e] else { continue }
            let removals = delta.removals[e]
            let additions = delta.additions[e]
            guard
                !removals.isEmpty || !additions.isEmpty || delta.documents[e] != 0
                    || delta.tokens[e] != 0
            else { continue }
            changed = true
            index.documentCount += delta.documents[e]
            index.tokenCount += delta.tokens[e]
            do {
                try index.apply(removals: removals.sorted(), additions: additions.sorted())
            } catch {
                // A chunk that does not decode: built from the store, which holds this commit.
                note =
                    "the text index of \(bindings[e].entity.name) was damaged in memory: "
                    + "it was built from the records"
                checks[e] = nil
                build(e)
            }
            _ = settle(e)
        }
    }

    /// The sidecar's contents, or `nil` if nothing changed since it was read or written.
    func snapshot(schemaVersion: UInt32) -> [UInt8]? {
        guard changed, !isEmpty else { return nil }
        // Writing reads every chunk: check them all first.
        checkAllLoaded()
        return TextIndexSnapshot.encode(
            names: bindings.map(\.entity.name), fields: readers.map { $0?.names ?? [] },
            indexes: indexes, schemaVersion: schemaVersion)
    }

    /// How each text index differs from the one its records give (empty when they are
    /// exact), for tests and consistency checks.
    func problems() throws -> [String] {
        var problems: [String] = []
        for e in bindings.indices {
            guard let reader = readers[e] else { continue }
            let name = bindings[e].entity.name
            guard let index = indexes[e] else {
                problems.append("\(name): text index unavailable")
                continue
            }
            let expected = try Self.build(reader, bindings[e], from: store)
            if expected.documentCount != index.documentCount
                || expected.tokenCount != index.tokenCount
            {
                problems.append(
                    "\(name): \(index.documentCount) documents and \(index.tokenCount) terms, "
                        + "\(expected.documentCount) and \(expected.tokenCount) expected")
            }
            let found = try Self.entries(of: index)
            let wanted = try Self.entries(of: expected)
            if found != wanted {
                let missing = Set(wanted).subtracting(found).count
                let extra = Set(found).subtracting(wanted).count
                problems.append(
                    "\(name): \(found.count) terms, \(wanted.count) expected "
                        + "(\(missing) missing or different, \(extra) extra or different)")
            }
        }
        return problems
    }

    private static func entries(of index: TextIndex) throws -> [[UInt8]] {
        var entries: [[UInt8]] = []
        try index.forEachEntry { term, postings in
            entries.append(Array(term) + [0] + Array(postings))
        }
        return entries
    }
}
