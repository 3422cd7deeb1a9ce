import LogStore

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
/// store holds (raw text or hex for the rest). A library-style function: `logbook dump` is a
/// thin shell over it.
///
/// Reads only: it opens the store read-only (no lock), so it works while another process
/// writes, and sees the commits complete when each file is read. Damaged regions are skipped
/// and returned in the summary. Memory: O(1) records, plus O(live keys) with `live`.
struct Dumper {
    /// The store's directory.
    let path: String
    /// What to show.
    let options: DumpOptions
    /// The store's schema, if it has one.
    let schema: StoredSchema?
    /// Things the caller should tell the user (no schema could be read, …).
    private(set) var warnings: [String] = []
    private let filter: ObjectFilter?

    /// Prepares a dump of the store at `path`: reads its schema and parses `--where`.
    /// - Throws: ``CommandError`` if the path is not a store, the store has a newer format
    ///   version, the entity is unknown or the predicate does not parse.
    init(path: String, options: DumpOptions) throws {
        self.path = path
        self.options = options
        let opened = try StoreAccess.openForReading(path, salvage: true)
        var keyspaces: [String] = []
        var schema: StoredSchema?
        var schemaProblem: String?
        switch opened {
        case .success(let store):
            defer { try? store.close() }
            keyspaces = (try? store.stats().keyspaces.map(\.name)) ?? []
            do {
                schema = try StoredSchema.read(from: store)
            } catch {
                schemaProblem = "the stored schema does not decode (\(error))"
                warnings.append(schemaProblem! + "; showing raw bytes")
            }
        case .failure(let error):
            warnings.append("the store does not open (\(error)); showing raw records")
        }
        self.schema = schema
        if let entity = options.entity, case .success = opened,
            schema?.entity(named: entity) == nil, !keyspaces.contains(entity)
        {
            throw CommandError.usage("the store has no entity or keyspace named \"\(entity)\"")
        }
        if let predicate = options.predicate {
            guard let schema else {
                throw CommandError.failed(
                    "--where needs a Logbook schema, and "
                        + (schemaProblem ?? "the store at \(path) holds none"))
            }
            filter = try schema.filter(predicate, entity: options.entity)
        } else {
            filter = nil
        }
    }

    /// Writes the records to `output`; returns what the walk found (counts, damage), or `nil`
    /// if it stopped at the limit before the end.
    /// - Throws: ``LogStoreError`` if the directory cannot be listed.
    func run(to output: inout some TextOutputStream, progress: ProgressLine) throws
        -> LogInspector.Summary?
    {
        let latest = options.live ? try latestRecords(progress: progress) : [:]
        var writer = DumpWriter(format: options.format)
        writer.begin(to: &output)
        var written = 0
        var summary: LogInspector.Summary?
        do {
            let walk = WalkProgress("dump", storeAt: path)
            summary = try LogInspector.walk(storeAt: path) { record in
                progress.update(walk.describe(record))
                guard record.kind != .defineKeyspace || (options.entity == nil && filter == nil)
                else { return }
                if let entity = options.entity, record.keyspace != entity { return }
                if options.live {
                    guard record.kind == .put,
                        latest[LiveKey(keyspace: record.keyspace, key: record.key)]
                            == RecordPosition(record)
                    else { return }
                }
                let meaning = self.meaning(of: record)
                if let filter {
                    guard case .object(let object) = meaning, filter.matches(object) else { return }
                }
                if let limit = options.limit, written >= limit { throw StopWalk() }
                writer.write(record, meaning: meaning, to: &output)
                written += 1
            }
        } catch is StopWalk {
            summary = nil
        }
        writer.end(to: &output)
        return summary
    }

    /// What the schema makes of `record`.
    private func meaning(of record: LogInspector.Record) -> RecordMeaning {
        guard let schema else { return .raw }
        switch record.kind {
        case .defineKeyspace: return .raw
        case .delete:
            guard schema.entity(named: record.keyspace) != nil, record.key.count == 8 else {
                return .raw
            }
            return .deletedObject(
                entity: record.keyspace, id: record.key.reduce(0) { $0 << 8 | UInt64($1) })
        case .put:
            if record.keyspace == StoredSchema.keyspace {
                let version = record.key.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                return record.key.count == 4 && version == schema.version ? .schema(schema) : .raw
            }
            do {
                return try schema.decode(
                    keyspace: record.keyspace, key: record.key, value: record.value ?? []
                ).map { .object($0) } ?? .raw
            } catch {
                return .undecodable("\(error)")
            }
        }
    }

    /// Where each key's last put or delete is, from a first pass over the log.
    private func latestRecords(progress: ProgressLine) throws -> [LiveKey: RecordPosition] {
        var latest: [LiveKey: RecordPosition] = [:]
        let walk = WalkProgress("dump --live: finding current values", storeAt: path)
        try LogInspector.walk(storeAt: path) { record in
            progress.update(walk.describe(record))
            guard record.kind != .defineKeyspace else { return }
            if let entity = options.entity, record.keyspace != entity { return }
            latest[LiveKey(keyspace: record.keyspace, key: record.key)] = RecordPosition(record)
        }
        return latest
    }
}

/// Thrown out of a walk to stop it at `--limit`.
private struct StopWalk: Error {}

/// A key in its keyspace.
private struct LiveKey: Hashable {
    var keyspace: String
    var key: [UInt8]
}

/// Where a record lies.
private struct RecordPosition: Equatable {
    var segment: String
    var offset: Int64

    init(_ record: LogInspector.Record) {
        segment = record.segment
        offset = record.recordOffset
    }
}
