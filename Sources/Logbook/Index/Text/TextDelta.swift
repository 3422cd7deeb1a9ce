import LogStore

/// What one commit does to the text indexes, per entity: the postings it removes and adds
/// (``TextIndex/apply(removals:additions:)``), and how its objects and terms change.
struct TextDelta {
    var removals: [IndexEntries]
    var additions: [IndexEntries]
    var documents: [Int]
    var tokens: [Int]
    /// The highest primary key put, per entity.
    var highest: [UInt64]

    init(entities: Int) {
        removals = Array(repeating: IndexEntries(), count: entities)
        additions = removals
        documents = Array(repeating: 0, count: entities)
        tokens = documents
        highest = Array(repeating: 0, count: entities)
    }
}

/// Builds the ``TextDelta`` of a batch one operation at a time, as the commit's walk of the batch
/// meets them (``ContainerCore/delta(of:)``), from each operation's new record and the stored
/// record it replaces. Made by ``ContainerIndexes/textDeltaBuilder()`` under the save lock.
final class TextDeltaBuilder {
    /// Per entity: the reader of its searchable fields, when it has a text index to keep.
    private let readers: [TextFieldReader?]
    /// Per entity: no stored record has a primary key above this (see ``IndexDeltaBuilder``).
    private let ceiling: [UInt64]
    // Unchecked exclusivity: used only by the one commit walk that made the builder, one call
    // at a time.
    @exclusivity(unchecked) private(set) var delta: TextDelta
    /// What each operation on a stored object added so far, in case the batch holds another
    /// operation on it (then the later one wins): its objects and terms.
    @exclusivity(unchecked) private var seen: [Int: [UInt64: (documents: Int, tokens: Int)]] = [:]
    private let old = TextDocument()
    private let new = TextDocument()

    init(readers: [TextFieldReader?], ceiling: [UInt64]) {
        self.readers = readers
        self.ceiling = ceiling
        delta = TextDelta(entities: readers.count)
    }

    /// Whether a put or delete of `pk` in `entity` needs the stored record it replaces.
    @inline(__always)
    func needsReplaced(_ entity: Int, _ pk: UInt64) -> Bool {
        readers[entity] != nil && pk <= ceiling[entity]
    }

    /// Adds a put (`value`) or delete (`nil`) of `pk` in `entity` that replaces the stored
    /// record `replaced` (`nil`: none, or not needed by ``needsReplaced(_:_:)``).
    /// - Throws: ``LogbookError/corruptRecord(entity:key:reason:)`` for a record that does not
    ///   decode.
    func add(
        entity: Int, pk: UInt64, replaced: UnsafeRawBufferPointer?, value: UnsafeRawBufferPointer?
    ) throws {
        guard let reader = readers[entity] else { return }
        old.reset()
        new.reset()
        if let replaced { try reader.read(replaced, pk, into: old) }
        if let value { try reader.read(value, pk, into: new) }
        var documents = (value != nil ? 1 : 0) - (replaced != nil ? 1 : 0)
        var tokens = new.length - old.length
        var repeated = false
        if pk <= ceiling[entity] {
            if let earlier = seen[entity, default: [:]][pk] {
                repeated = true
                // A second operation on the object: undo what the first one added.
                documents -= earlier.documents
                tokens -= earlier.tokens
                delta.additions[entity] = Self.removing(pk, from: delta.additions[entity])
            }
            seen[entity, default: [:]][pk] = (
                (value != nil ? 1 : 0) - (replaced != nil ? 1 : 0), new.length - old.length
            )
        }
        delta.documents[entity] += documents
        delta.tokens[entity] += tokens
        delta.highest[entity] = max(delta.highest[entity], pk)
        // (After a first operation on the object, its removals stand: this one's additions
        // must follow them even when it puts back the stored terms.)
        if !repeated && replaced != nil && value != nil && old.hasSameTerms(as: new) { return }
        if replaced != nil { old.appendKeys(key: pk, to: &delta.removals[entity]) }
        if value != nil { new.appendEntries(key: pk, to: &delta.additions[entity]) }
    }

    /// `entries` (edits, ``TextIndexCoding/appendEdit(term:key:to:)``) without those of object
    /// `pk`.
    private static func removing(_ pk: UInt64, from entries: IndexEntries) -> IndexEntries {
        var kept = IndexEntries()
        entries.forEach { entry in
            let key = TextIndexCoding.editKey(
                entry, termLength: TextIndexCoding.editTermLength(entry))
            if key != pk { kept.append(entry) }
        }
        return kept
    }
}
