import LogStore
import Logbook

/// The output forms of `dump` (and `stats`).
enum OutputFormat: String, CaseIterable {
    /// Aligned columns for people.
    case text
    /// One JSON array.
    case json
    /// One JSON object a line.
    case jsonl
}

/// What `logbook dump` shows.
struct DumpOptions {
    /// Only records of this entity or keyspace.
    var entity: String?
    /// Only object records satisfying this predicate.
    var predicate: String?
    /// Only the record that holds each key's current value (no history, no deletes).
    var live = false
    /// How records are written.
    var format = OutputFormat.text
    /// At most this many records.
    var limit: Int?
}

/// Writes the records of a store in log order, decoding object records with the schema the
/// store holds (every stored version; raw text or hex for the rest). A library-style function:
/// `logbook dump` is a thin shell over it.
///
/// Reads only: it opens the store read-only (no lock), so it works while another process
/// writes, and sees the commits complete when each file is read. Damaged regions are skipped
/// and returned in the summary. Memory: one record at a time; `live` asks the open store's
/// index whether each record is current instead of remembering keys.
struct Dumper {
    /// The store's directory.
    let path: String
    /// What to show.
    let options: DumpOptions
    /// Things the caller should tell the user (no schema could be read, …).
    private(set) var warnings: [String] = []
    /// The store open read-only, if it opens: the index `live` consults.
    private let store: LogStore?
    private let decoder: RecordDecoder?
    /// Every stored schema version, by number.
    private let schemas: [UInt32: Schema]
    private let filter: ObjectFilter?

    /// Prepares a dump of the store at `path`: opens it read-only, reads its schema and parses
    /// `--where`.
    /// - Throws: ``CommandError`` if the path is not a store, the store has a newer format
    ///   version, the entity is unknown or the predicate does not parse.
    init(path: String, options: DumpOptions) throws {
        self.path = path
        self.options = options
        var keyspaces: [String] = []
        var decoder: RecordDecoder?
        var schemas: [UInt32: Schema] = [:]
        var schemaProblem: String?
        switch try StoreAccess.openForReading(path, salvage: true) {
        case .success(let store):
            self.store = store
            keyspaces = (try? store.stats().keyspaces.map(\.name)) ?? []
            do {
                decoder = try RecordDecoder.stored(in: store)
                for schema in try Schema.storedVersions(in: store) {
                    schemas[schema.version] = schema
                }
            } catch {
                decoder = nil
                schemaProblem = "the stored schema does not decode (\(error))"
                warnings.append(schemaProblem! + "; showing raw bytes")
            }
        case .failure(let error):
            guard !options.live else {
                throw CommandError.failed(
                    "--live needs the store's index, and the store does not open: \(error)")
            }
            store = nil
            warnings.append("the store does not open (\(error)); showing raw records")
        }
        self.decoder = decoder
        self.schemas = schemas
        if let entity = options.entity, store != nil,
            decoder?.schema.entity(named: entity) == nil, !keyspaces.contains(entity)
        {
            throw CommandError.usage("the store has no entity or keyspace named \"\(entity)\"")
        }
        if let predicate = options.predicate {
            guard let decoder else {
                throw CommandError.failed(
                    "--where needs a Logbook schema, and "
                        + (schemaProblem ?? "the store at \(path) holds none"))
            }
            filter = try decoder.filter(predicate, entity: options.entity)
        } else {
            filter = nil
        }
    }

    /// Writes the records to `output`; returns what the walk found (counts, damage), or `nil`
    /// if it stopped at the limit before the end.
    /// - Throws: ``LogStoreError`` if the directory cannot be listed.
    func run(to output: FileOutput, progress: ProgressLine) throws -> LogInspector.Summary? {
        defer { try? store?.close() }
        var writer = DumpWriter(format: options.format, to: output)
        writer.begin()
        var written = 0
        var summary: LogInspector.Summary?
        var objectKeyspaces = EntityKeyspaces()
        var current = store.map(LogStore.CurrentRecords.init(of:))
        do {
            let walk = WalkProgress("dump", storeAt: path)
            let meter = ProgressMeter("dump", unit: "records")
            var read = 0
            summary = try LogInspector.walkInPlace(storeAt: path) { visited in
                read += 1
                if progress.isDue() {
                    progress.show(
                        walk.describe(
                            LogInspector.Record(copying: visited), done: read, meter: meter))
                }
                guard visited.kind != .defineKeyspace || (options.entity == nil && filter == nil)
                else { return }
                if let entity = options.entity, visited.keyspace != entity { return }
                if options.live, try visited.kind != .put || current?.contains(visited) != true {
                    return
                }
                // Objects, unfiltered: decoded straight into the output from the lent bytes.
                if filter == nil, visited.kind == .put, let decoder,
                    objectKeyspaces.contains(visited.keyspace, decoder)
                {
                    if let limit = options.limit, written >= limit { throw StopWalk() }
                    if (try? writer.writeObject(visited, decoder: decoder)) != nil {
                        written += 1
                        return
                    }
                }
                let record = LogInspector.Record(copying: visited)
                let meaning = self.meaning(of: record)
                if let filter {
                    guard case .object(let object) = meaning, filter.matches(object) else { return }
                }
                if let limit = options.limit, written >= limit { throw StopWalk() }
                writer.write(record, meaning: meaning)
                written += 1
            }
        } catch is StopWalk {
            summary = nil
        }
        writer.end()
        return summary
    }

    /// What the schema makes of `record`.
    private func meaning(of record: LogInspector.Record) -> RecordMeaning {
        guard let decoder else { return .raw }
        switch record.kind {
        case .defineKeyspace: return .raw
        case .delete:
            guard decoder.isEntityKeyspace(record.keyspace),
                let id = record.key.withUnsafeBytes({
                    PersistentIdentifier(entityName: record.keyspace, storeKey: $0)?.primaryKey
                })
            else { return .raw }
            return .deletedObject(entity: record.keyspace, id: id)
        case .put:
            if record.keyspace == Keyspaces.schema {
                guard let version = Keyspaces.schemaVersion(ofKey: record.key),
                    let schema = schemas[version]
                else { return .raw }
                return .schema(schema)
            }
            guard decoder.isEntityKeyspace(record.keyspace) else { return .raw }
            do {
                return .object(
                    try decoder.decode(
                        keyspace: record.keyspace, key: record.key, value: record.value ?? []))
            } catch {
                return .undecodable("\(error)")
            }
        }
    }
}

/// Whether keyspaces are an entity's, remembering the last answer: a walk meets the same
/// keyspace many times in a row.
private struct EntityKeyspaces {
    private var last = ""
    private var lastIsEntity = false

    mutating func contains(_ keyspace: String, _ decoder: RecordDecoder) -> Bool {
        if keyspace != last {
            last = keyspace
            lastIsEntity = decoder.isEntityKeyspace(keyspace)
        }
        return lastIsEntity
    }
}

/// Thrown out of a walk to stop it at `--limit`.
private struct StopWalk: Error {}
