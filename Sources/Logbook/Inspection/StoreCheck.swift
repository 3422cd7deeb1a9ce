import LogStore

/// What ``StoreCheck`` found: the engine's report and the object layer's findings.
public struct StoreCheckReport: Sendable {
    /// One problem the object layer found, and where.
    public struct Finding: Sendable, Hashable, CustomStringConvertible {
        /// The file (a segment), or the store's directory when no one file is to blame.
        public var path: String
        /// Where in the file, when known.
        public var offset: Int64?
        /// What is wrong.
        public var message: String

        /// A finding of `message` about `path` (at `offset`, when known).
        public init(path: String, offset: Int64?, message: String) {
            self.path = path
            self.offset = offset
            self.message = message
        }

        /// `path at offset N: message`.
        public var description: String {
            path + (offset.map { " at offset \($0)" } ?? "") + ": " + message
        }
    }

    /// The engine's check of the log, by `open`'s own rules (`LogInspector.verify(storeAt:)`).
    public var log = VerifyReport()
    /// Object records decoded with the stored schema (0 for a store without one).
    public var objectsChecked = 0
    /// Object records (live or not) that do not decode with the stored schema, in log order,
    /// then a stored schema that does not decode.
    public var damagedRecords: [Finding] = []
    /// To-one relationships that name an object that does not exist, in entity, then
    /// primary-key order; checked only when the log and every record check.
    public var danglingReferences: [Finding] = []
    /// An index sidecar that describes the store but does not check (its checksums, or an
    /// index chunk's order): not damage, since opening builds the indexes from the records
    /// instead (FORMAT.md Part 2, "Index sidecar"), but worth knowing.
    public var unusableIndexSidecar: Finding?

    /// Whether the store is damaged: the log, a record or a reference.
    public var isDamaged: Bool {
        log.isDamaged || !damagedRecords.isEmpty || !danglingReferences.isEmpty
    }
}

/// Logbook's consistency check of a store, the one `logbook verify` prints and the tests use
/// (as bbolt's `Tx.Check` serves its CLI and its tests): the engine's check of the log
/// (`LogInspector.verify(storeAt:)`), then what only the object layer can check: that every
/// object record, live or not, decodes with the stored schema; that every to-one relationship
/// points at an object that exists; and that an index sidecar that describes the store checks.
///
/// Reads only, and works while another process writes the store. Memory is bounded whatever the
/// number of objects: the log is read once, front to back, and the schema comes from a
/// read-only open that indexes only its keyspace; the relationship and sidecar checks index
/// only the entities they need.
public enum StoreCheck {
    /// Checks the store at `path`.
    /// - Throws: what `LogInspector.verify(storeAt:)` throws (a path that is not a store).
    /// - Complexity: one pass over the log, plus one over the records of the entities with
    ///   to-one relationships when any record holds one.
    public static func run(storeAt path: String) throws -> StoreCheckReport {
        try run(storeAt: path) { _ in }
    }

    /// ``run(storeAt:)``, calling `visit` with each record of the log as it is checked (for a
    /// progress line). `keyDirectoryPassBytes`, when given, bounds the table bytes each pass of
    /// the key directory file's comparison holds (tests make it small).
    package static func run(
        storeAt path: String, keyDirectoryPassBytes: Int? = nil,
        visit: (LogInspector.VisitedRecord) -> Void
    ) throws -> StoreCheckReport {
        var report = StoreCheckReport()
        let (schema, decoder, schemaError) = readSchema(path)
        var lastSchemaRecord: StoreCheckReport.Finding?
        typealias RecordCheck = (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Bool
        // The check of the keyspace last seen (records come in runs of one keyspace).
        var checked: (keyspace: String, check: RecordCheck?)?
        var holdsReferences = false
        report.log = try LogInspector.verify(
            storeAt: path, fileSystem: PosixFileSystem(),
            keyDirectoryPassBytes: keyDirectoryPassBytes
        ) { record in
            visit(record)
            guard record.kind == .put else { return }
            if record.keyspace == Keyspaces.schema {
                if let schemaError {
                    lastSchemaRecord = .init(
                        path: path + "/" + record.segment, offset: record.recordOffset,
                        message: schemaError)
                }
                return
            }
            if checked?.keyspace != record.keyspace {
                checked = (record.keyspace, decoder?.checker(forKeyspace: record.keyspace))
            }
            guard let check = checked?.check else { return }
            do {
                if try check(record.key, record.value!) { holdsReferences = true }
                report.objectsChecked += 1
            } catch {
                report.damagedRecords.append(
                    .init(
                        path: path + "/" + record.segment, offset: record.recordOffset,
                        message: "object record does not decode: \(error)"))
            }
        }
        if let schemaError {
            report.damagedRecords.append(
                lastSchemaRecord ?? .init(path: path, offset: nil, message: schemaError))
        }
        guard let schema, !report.log.isDamaged else { return report }
        // Only a record that holds a reference can hold a dangling one, and every live record
        // was checked above.
        if holdsReferences { report.danglingReferences = checkReferences(schema, path) }
        report.unusableIndexSidecar = checkIndexSidecar(schema, path)
        return report
    }

    /// The stored schema and a decoder for its records, from a read-only open that indexes only
    /// the schema's keyspace; or why there is none usable.
    private static func readSchema(_ path: String) -> (Schema?, RecordDecoder?, String?) {
        guard let store = try? open(path, indexing: [Keyspaces.schema]) else {
            return (nil, nil, nil)
        }
        defer { try? store.close() }
        do {
            guard let schema = try Schema.stored(in: store) else { return (nil, nil, nil) }
            return (schema, try RecordDecoder(store: store), nil)
        } catch {
            return (nil, nil, "the stored schema does not decode: \(error)")
        }
    }

    /// A read-only open that indexes only `keyspaces`.
    private static func open(_ path: String, indexing keyspaces: Set<String>) throws -> LogStore {
        var options = LogStoreOptions()
        options.readOnly = true
        options.createIfMissing = false
        options.autoCompactionDeadFraction = nil
        options.indexedKeyspaces = keyspaces
        return try LogStore(path: path, options: options)
    }

    /// The relationship check, on a read-only open indexing the entities it needs.
    private static func checkReferences(_ schema: Schema, _ path: String)
        -> [StoreCheckReport.Finding]
    {
        var needed: Set<String> = [Keyspaces.schema]
        for entity in schema.entities {
            for relationship in entity.relationships where relationship.isStored {
                needed.insert(entity.name)
                needed.insert(relationship.destination)
                // A reference to a superentity may name an object of a sub-entity.
                if let d = schema.entities.firstIndex(where: { $0.name == relationship.destination }
                ) {
                    for sub in schema.descendants(of: d) {
                        needed.insert(schema.entities[sub].name)
                    }
                }
            }
        }
        do {
            let store = try open(path, indexing: needed)
            defer { try? store.close() }
            return try ReferenceCheck.danglingReferences(in: store, path: path)
        } catch {
            return [
                .init(
                    path: path, offset: nil, message: "relationships could not be checked: \(error)"
                )
            ]
        }
    }

    /// The index sidecar check, on a read-only open indexing the entities that have indexes:
    /// when the sidecar describes the store, its contents checksum and every chunk of its
    /// indexes, as an open would check them before use.
    private static func checkIndexSidecar(_ schema: Schema, _ path: String)
        -> StoreCheckReport.Finding?
    {
        let definitions = schema.entities.enumerated().map {
            IndexDefinition.all(of: $0.element, binding: $0.offset)
        }
        guard definitions.contains(where: { !$0.isEmpty }) else { return nil }
        var needed: Set<String> = [Keyspaces.schema]
        for (entity, indexes) in zip(schema.entities, definitions) where !indexes.isEmpty {
            needed.insert(entity.name)
        }
        guard let store = try? open(path, indexing: needed) else { return nil }
        defer { try? store.close() }
        let file = path + "/" + IndexSnapshot.sidecarName + LogStore.sidecarSuffix
        let problem = IndexSnapshot.problem(in: store, definitions: definitions, schema: schema)
        return problem.map { .init(path: file, offset: nil, message: $0) }
    }
}

extension IndexSnapshot {
    /// What is wrong with `store`'s index sidecar when it describes the store (`nil` when it
    /// checks, or is missing or out of date, which is no damage): a contents checksum, a
    /// snapshot that does not decode, or a chunk that fails its checks.
    static func problem(in store: LogStore, definitions: [[IndexDefinition]], schema: Schema)
        -> String?
    {
        do {
            let current = try store.withSidecar(named: sidecarName) { sequence, _ in
                sequence == store.lastSequence
            }
            guard current == true else { return nil }
        } catch {
            return "\(error)"
        }
        let loaded = load(from: store, definitions: definitions, schemaVersion: schema.version)
        if loaded.note == undecodable { return undecodable }
        for (entity, indexes) in loaded.indexes.enumerated() {
            for index in indexes ?? [] { index.checkAll() }
            if let problem = loaded.checks[entity]?.problem { return problem }
        }
        return nil
    }
}
