import Foundation
import LogStore

extension ModelContext {
    /// The objects matching a search, best first (see ``SearchDescriptor`` for the syntax and
    /// the ranking). Objects are built only for the results, as a fetch builds them (uniquing:
    /// registered objects are returned as they are). The stored objects are those of one state
    /// of the store, the one the text index describes; unsaved changes take part unless the
    /// descriptor leaves them out.
    ///
    /// The entity's text index answers without reading records; with a predicate, only the
    /// records of the objects that match the words are read and tested.
    /// - Throws: ``LogbookError/notSearchable(entity:)`` for a class without searchable
    ///   attributes, ``LogbookError/unknownEntity(_:)``, errors of the predicate,
    ///   ``LogbookError/corruptRecord(entity:key:reason:)``, ``LogbookError/store(_:)``.
    /// - Complexity: O(postings of the search's terms) plus O(m log m) for m matches.
    public func search<Model: PersistentModel>(_ descriptor: SearchDescriptor<Model>) throws
        -> [Model]
    {
        try runSearch(descriptor, building: true).objects.map { unsafeDowncast($0, to: Model.self) }
    }

    /// The identifiers and scores of the objects matching a search, best first, without
    /// building objects (unless the predicate can only be tested on objects).
    /// - Throws: as ``search(_:)-(SearchDescriptor<Model>)``.
    public func searchMatches<Model: PersistentModel>(_ descriptor: SearchDescriptor<Model>)
        throws -> [SearchMatch]
    {
        try runSearch(descriptor, building: false).matches
    }

    /// The objects of an entity given by name that match a search, best first.
    /// - Throws: as ``search(_:)-(SearchDescriptor<Model>)``, and
    ///   ``LogbookError/unknownAttribute(entity:attribute:)`` for the predicate.
    public func search(_ descriptor: EntitySearchDescriptor) throws -> [any ModelObject] {
        try runSearch(descriptor, building: true).objects.compactMap { $0 as? any ModelObject }
    }

    /// The identifiers and scores of the objects of an entity given by name that match a
    /// search, best first, without building objects.
    /// - Throws: as ``search(_:)-(EntitySearchDescriptor)``.
    public func searchMatches(_ descriptor: EntitySearchDescriptor) throws -> [SearchMatch] {
        try runSearch(descriptor, building: false).matches
    }

    private func runSearch<Model: PersistentModel>(
        _ descriptor: SearchDescriptor<Model>, building: Bool
    ) throws -> (matches: [SearchMatch], objects: [AnyObject]) {
        var fetch = FetchDescriptor<Model>(predicate: descriptor.predicate)
        fetch.includePendingChanges = descriptor.includePendingChanges
        return try search(
            makePlan(fetch), SearchQuery(descriptor.text), limit: descriptor.limit,
            building: building)
    }

    private func runSearch(_ descriptor: EntitySearchDescriptor, building: Bool) throws -> (
        matches: [SearchMatch], objects: [AnyObject]
    ) {
        var fetch = EntityFetchDescriptor(
            entityName: descriptor.entityName, predicate: descriptor.predicate)
        fetch.includePendingChanges = descriptor.includePendingChanges
        return try search(
            makePlan(fetch), SearchQuery(descriptor.text), limit: descriptor.limit,
            building: building)
    }

    /// Runs a search: the stored matches from the text index with a view of the records in the
    /// same state, the pending objects tokenized here, BM25 over both as if they were saved,
    /// then the plan's predicate on the candidates in rank order until `limit` pass it.
    private func search(
        _ plan: FetchPlan, _ query: SearchQuery, limit: Int?, building: Bool
    ) throws -> (matches: [SearchMatch], objects: [AnyObject]) {
        let binding = plan.binding
        guard let reader = core.indexes.text.readers[binding.index] else {
            throw LogbookError.notSearchable(entity: binding.entity.name)
        }
        if query.isEmpty || limit.map({ $0 <= 0 }) == true { return ([], []) }
        let generation = core.saveGeneration
        let (skip, pending) = pendingEntries(plan)
        let found = try core.indexes.withTextView(
            of: binding.index, keyspace: binding.keyspace, in: core.store
        ) { text, view -> (Int, Int, [ItemMatches], LogStore.KeyspaceView)? in
            guard let text else { return nil }
            do {
                return (
                    text.documentCount, text.tokenCount,
                    try query.items.map { try ItemMatches($0, in: text) }, view
                )
            } catch is ByteReader.Truncated {
                throw LogbookError.corruptRecord(
                    entity: binding.entity.name, key: "text index",
                    reason: "a chunk of the text index does not decode")
            }
        }
        guard let (storedDocuments, storedTokens, items, view) = found else {
            throw core.indexes.textFailure(of: binding.index)
                ?? LogbookError.notSearchable(entity: binding.entity.name)
        }
        var (documents, tokens) = (storedDocuments, storedTokens)
        var containing = items.map(\.count)
        // Pending changes, as a save would apply them: the stored versions they hide leave the
        // statistics, their own versions join them.
        let document = TextDocument()
        for pk in skip {
            document.reset()
            let stored = try wrapStoreErrors {
                try Keyspaces.withObjectKey(pk) { key in
                    try view.readValue(forKey: key) { try reader.read($0, pk, into: document) }
                }
            }
            guard stored else { continue }
            documents -= 1
            tokens -= document.length
            for (i, item) in query.items.enumerated() where document.frequency(of: item) > 0 {
                containing[i] -= 1
            }
        }
        var candidates: [Candidate] = []
        for e in pending {
            guard let object = table.objects[Int(e)] else { continue }
            document.reset()
            reader.read({ binding.read(object, $0) }, into: document)
            documents += 1
            tokens += document.length
            let frequencies = query.items.map { document.frequency(of: $0) }
            for (i, frequency) in frequencies.enumerated() where frequency > 0 {
                containing[i] += 1
            }
            if frequencies.allSatisfy({ $0 > 0 }) {
                candidates.append(
                    Candidate(
                        key: table[e].primaryKey, entry: e, frequencies: frequencies,
                        length: document.length))
            }
        }
        candidates += Self.storedCandidates(items, skip: skip)
        // Ranked as if the pending changes were saved.
        let averageLength = documents > 0 ? Double(tokens) / Double(documents) : 0
        let idf = containing.map { BM25.idf(documents: max(documents, 0), containing: $0) }
        var ranked = candidates.map { candidate -> (score: Double, candidate: Candidate) in
            var score = 0.0
            for (i, frequency) in candidate.frequencies.enumerated() {
                score += BM25.score(
                    frequency: frequency, length: candidate.length, averageLength: averageLength,
                    idf: idf[i])
            }
            return (score, candidate)
        }
        ranked.sort { a, b in
            a.score != b.score ? a.score > b.score : a.candidate.key < b.candidate.key
        }
        return try select(
            ranked, plan, limit: limit, building: building, view: view, generation: generation)
    }

    /// One object a search matched: a stored one (`entry` -1) or a pending one.
    private struct Candidate {
        var key: UInt64
        var entry: Int32 = -1
        var frequencies: [Int]
        var length: Int
    }

    /// The stored objects every item matches, but those pending changes hide.
    private static func storedCandidates(_ items: [ItemMatches], skip: Set<UInt64>)
        -> [Candidate]
    {
        guard let first = items.min(by: { $0.count < $1.count }) else { return [] }
        var candidates: [Candidate] = []
        var cursors = [Int](repeating: 0, count: items.count)
        for key in first.keys where !skip.contains(key) {
            var frequencies: [Int] = []
            frequencies.reserveCapacity(items.count)
            var length = 0
            var holdsAll = true
            for (i, item) in items.enumerated() {
                while cursors[i] < item.count && item.keys[cursors[i]] < key { cursors[i] += 1 }
                guard cursors[i] < item.count, item.keys[cursors[i]] == key else {
                    holdsAll = false
                    break
                }
                frequencies.append(item.frequencies[cursors[i]])
                length = item.lengths[cursors[i]]
            }
            if holdsAll {
                candidates.append(Candidate(key: key, frequencies: frequencies, length: length))
            }
        }
        return candidates
    }

    /// The ranked candidates that pass the plan's predicate, in rank order, up to `limit`; with
    /// their objects when `building` (or when the predicate tests objects). Stored records are
    /// read through `view`, the state the text index described.
    private func select(
        _ ranked: [(score: Double, candidate: Candidate)], _ plan: FetchPlan, limit: Int?,
        building: Bool, view: LogStore.KeyspaceView, generation: UInt64
    ) throws -> (matches: [SearchMatch], objects: [AnyObject]) {
        let binding = plan.binding
        let name = binding.entity.name
        let wanted = limit ?? Int.max
        // A predicate of attribute comparisons is tested on the candidates' records, read in
        // one pass; one that needs objects is tested on each candidate's object in rank order.
        var records: [UInt64: (start: Int, count: Int)]?
        var bytes: [UInt8] = []
        var objectTest: ((AnyObject) throws -> Bool)?
        var resolvedPlan = plan
        switch plan.matcher {
        case .all:
            break
        case .filter:
            resolvedPlan = try resolved(plan)
            let keys = ranked.filter { $0.candidate.entry < 0 }.map(\.candidate.key).sorted()
            var scanned = resolvedPlan
            scanned.sortKeys = []
            let scan = RecordScan(plan: scanned, keepRecords: true, skip: [])
            try wrapStoreErrors {
                try view.forEachValue(forKeys: keys) { key, value in
                    try scan.visit(key: key, value: value)
                }
            }
            var kept: [UInt64: (start: Int, count: Int)] = [:]
            for candidate in scan.candidates {
                kept[candidate.primaryKey] = (candidate.bytesStart, candidate.bytesCount)
            }
            records = kept
            bytes = scan.bytes
        case .object(let test), .registeredObject(let test):
            objectTest = test
        }
        var matches: [SearchMatch] = []
        var objects: [AnyObject] = []
        let needObjects = building || objectTest != nil
        try table.withPruningPaused {
            for (score, candidate) in ranked {
                guard matches.count < wanted else { break }
                var object: AnyObject?
                if candidate.entry >= 0 {
                    // Invariant: a pending candidate's entry holds its object during the search.
                    let live = table.objects[Int(candidate.entry)].unsafelyUnwrapped
                    if records != nil, !(try matchesPending(resolvedPlan, live, candidate.entry)) {
                        continue
                    }
                    object = live
                } else if let records {
                    guard let place = records[candidate.key] else { continue }
                    if needObjects {
                        object = try bytes.withUnsafeBytes { raw in
                            try fetchedObject(
                                UnsafeRawBufferPointer(
                                    rebasing: raw[place.start..<(place.start + place.count)]),
                                candidate.key, binding, generation: generation
                            ).object
                        }
                    }
                } else if needObjects {
                    object = try Keyspaces.withObjectKey(candidate.key) { key in
                        try wrapStoreErrors {
                            try view.withValue(forKey: key) { record in
                                try fetchedObject(
                                    record, candidate.key, binding, generation: generation
                                ).object
                            }
                        }
                    }
                    // Invariant: the view holds every stored candidate's record.
                    guard object != nil else { continue }
                }
                if let objectTest, let object, !(try objectTest(object)) { continue }
                matches.append(
                    SearchMatch(
                        id: PersistentIdentifier(entityName: name, primaryKey: candidate.key),
                        score: score))
                if building, let object { objects.append(object) }
            }
        }
        return (matches, objects)
    }
}
