import Foundation
import LogStore
import Logbook

/// The formats of `logbook export`.
enum ExportFormat: String, CaseIterable {
    /// A `{"_schema": …}` line, then one `{"_entity": …, "_id": …, attributes…}` line per object.
    case jsonl
    /// One entity: a header row `id,attribute,…`, then one row per object (RFC 4180).
    case csv
    /// `CREATE TABLE` and `INSERT` statements in one transaction, typed for PostgreSQL as
    /// `logbook changes --format sql` is (``PostgreSQLTable``), which SQLite also reads.
    case sql
}

/// Writes the live objects of a store, decoded with its stored schema, as JSON Lines, CSV or
/// SQL. Objects come entity by entity in schema order, each entity's in primary-key order, so
/// the output of a store is always the same. A library-style function behind `logbook export`.
///
/// Reads only (the store is opened read-only by the caller). Streams: each object is decoded,
/// written to the buffered output and forgotten; memory is bounded by ``PrimaryKeyOrder``'s
/// window, not by the number of objects.
struct Exporter {
    /// The walk in primary-key order. The environment variables `LOGBOOK_KEY_WINDOW` and
    /// `LOGBOOK_LATE_KEPT` set its window and how many late records it copies, so tests can see
    /// many windows.
    static var keyOrder: PrimaryKeyOrder {
        let environment = ProcessInfo.processInfo.environment
        let defaults = PrimaryKeyOrder()
        return PrimaryKeyOrder(
            window: environment["LOGBOOK_KEY_WINDOW"].flatMap { Int($0) } ?? defaults.window,
            keptLate: environment["LOGBOOK_LATE_KEPT"].flatMap { Int($0) } ?? defaults.keptLate)
    }

    /// The store, open (read-only) for the exporter's lifetime.
    let store: LogStore
    /// Its schema's decoder.
    let decoder: RecordDecoder
    /// The entities to export, in schema order.
    let entities: [Entity]

    /// An exporter of `entity` (every entity if `nil`) of `store`.
    /// - Throws: ``CommandError`` if the store has no schema or no such entity.
    init(store: LogStore, entity: String?) throws {
        guard let decoder = try RecordDecoder.stored(in: store) else {
            throw CommandError.failed(
                "the store at \(store.path) holds no Logbook schema, so it has no objects to "
                    + "export; `logbook dump` shows its raw records")
        }
        self.store = store
        self.decoder = decoder
        if let entity {
            guard let found = decoder.schema.entity(named: entity) else {
                throw CommandError.usage(
                    "no entity \"\(entity)\" in the stored schema (it has "
                        + decoder.schema.entities.map(\.name).joined(separator: ", ") + ")")
            }
            entities = [found]
        } else {
            entities = decoder.schema.entities
        }
    }

    /// Writes every object in `format`; returns how many.
    /// - Throws: ``CommandError/usage(_:)`` for CSV of several entities; the object layer's
    ///   error for a record that does not decode.
    @discardableResult
    func run(_ format: ExportFormat, to output: FileOutput, progress: ProgressLine) throws -> Int {
        if format == .csv && entities.count != 1 {
            throw CommandError.usage(
                "CSV holds one entity; pick one with --entity ("
                    + entities.map(\.name).joined(separator: ", ") + ")")
        }
        var resume: HistoryToken?
        switch format {
        case .jsonl: output.write("{\"_schema\":\(SchemaJSON.encode(decoder.schema))}\n")
        case .csv:
            output.write(
                (["id"] + entities[0].fieldNames).map { AttributeValue.string($0).text(as: .csv) }
                    .joined(separator: ",") + "\r\n")
        case .sql:
            resume = try HistoryToken.current(of: store)
            output.write("-- exported by logbook from \(store.path), schema version ")
            output.write("\(decoder.schema.version)\n")
            output.write("-- typed for PostgreSQL, as `logbook changes --format sql`\nBEGIN;\n")
        }
        var count = 0
        let valueFormat = format.valueFormat
        let sql = format == .sql
        for entity in entities {
            if format == .sql { output.write(Self.createTable(entity)) }
            let prefixes = PrefixBytes(Self.prefixes(of: entity, format))
            defer { prefixes.deallocate() }
            let fields = entity.storedFieldDescriptions
            // Strings come as their stored bytes, values without a keyspace lookup per record.
            guard let reader = EntityFieldReader(decoder, entity: entity.name) else {
                throw LogbookError.unknownEntity(entity.name)
            }
            // A many-to-many's links go to its join table, after the entity's rows.
            let joins = sql ? PostgreSQLJoinTable.all(of: entity) : []
            let hasJoins = !joins.isEmpty
            var links = joins.map { _ in [UInt8]() }
            let meter = ProgressMeter(
                "export: \(entity.name)", total: try store.count(in: entity.name))
            var done = 0
            try Self.keyOrder.forEach(in: entity.name, of: store) { key, value in
                try output.render { out in
                    out.append(contentsOf: prefixes.object)
                    let id =
                        PersistentIdentifier(entityName: entity.name, storeKey: key)?.primaryKey
                        ?? 0
                    out.appendNumber(id)
                    _ = try reader.decode(key: key, value: value) { i, field in
                        if hasJoins, let j = joins.firstIndex(where: { $0.field == i }) {
                            let keys = PostgreSQLJoinTable.keys(Self.value(of: field)) ?? []
                            joins[j].appendRows(owner: id, keys: keys, to: &links[j])
                            return
                        }
                        out.append(contentsOf: prefixes.field(i))
                        let value: AttributeValue
                        switch field {
                        case .utf8(let bytes):
                            // As `value.append(as:)` writes it (and ``PostgreSQLLiteral``,
                            // which writes a string as its `.sql` text), from the record's bytes.
                            AttributeValue.appendString(utf8: bytes, as: valueFormat, to: &out)
                            return
                        case .value(let decoded): value = decoded
                        }
                        if sql {
                            // Only an array's literal depends on the field's description (not
                            // copied for the other values: a copy counts its references).
                            if case .array = value {
                                PostgreSQLLiteral.append(value, as: fields[i], to: &out)
                            } else {
                                PostgreSQLLiteral.append(value, to: &out)
                            }
                        } else {
                            value.append(as: valueFormat, to: &out)
                        }
                    }
                    out.append(contentsOf: prefixes.end)
                }
                for j in links.indices where links[j].count >= 1 << 16 {
                    output.write(joins[j].insert(links[j]))
                    links[j].removeAll(keepingCapacity: true)
                }
                done += 1
                if progress.isDue() { progress.show(meter.describe(done: done)) }
                return true
            }
            for (join, rows) in zip(joins, links) { output.write(join.insert(rows)) }
            count += done
        }
        if format == .sql {
            output.write("COMMIT;\n")
            // The token `logbook changes --since` continues from (what this export shows).
            if let resume { output.write("-- resume \(resume)\n") }
        }
        return count
    }

    /// The value a field read by ``EntityFieldReader`` holds.
    private static func value(of field: FieldBytes) -> AttributeValue {
        switch field {
        case .utf8(let bytes): .string(String(decoding: bytes, as: UTF8.self))
        case .value(let value): value
        }
    }

    /// The bytes around an object's values: before its id, before each field, after the last.
    private static func prefixes(of entity: Entity, _ format: ExportFormat) -> (
        object: [UInt8], fields: [[UInt8]], end: [UInt8]
    ) {
        let names = entity.fieldNames
        switch format {
        case .jsonl:
            return (
                Array("{\"_entity\":\(Formatting.quoted(entity.name)),\"_id\":".utf8),
                names.map { Array(",\(Formatting.quoted($0)):".utf8) }, Array("}\n".utf8)
            )
        case .csv: return ([], names.map { _ in [UInt8(ascii: ",")] }, Array("\r\n".utf8))
        case .sql:
            // Not the links of a many-to-many: they have a table of their own.
            let linkFields = Set(PostgreSQLJoinTable.all(of: entity).map(\.field))
            let columns =
                (["id"] + names.indices.filter { !linkFields.contains($0) }.map { names[$0] })
                .map(identifier).joined(separator: ", ")
            return (
                Array("INSERT INTO \(identifier(entity.name)) (\(columns)) VALUES (".utf8),
                names.map { _ in Array(", ".utf8) }, Array(");\n".utf8)
            )
        }
    }

    /// The bytes around an object's values (``prefixes(of:_:)``) in memory of their own, read
    /// without counting references: appended for every object and every value of an export.
    /// Freed by ``deallocate()``.
    private struct PrefixBytes {
        private let bytes: UnsafeMutableRawBufferPointer
        /// Where the object's prefix, each field's and the end start in `bytes`, and where the
        /// end ends.
        private let starts: UnsafeMutableBufferPointer<Int>

        init(_ prefixes: (object: [UInt8], fields: [[UInt8]], end: [UInt8])) {
            let parts = [prefixes.object] + prefixes.fields + [prefixes.end]
            bytes = .allocate(byteCount: max(parts.reduce(0) { $0 + $1.count }, 1), alignment: 1)
            starts = .allocate(capacity: parts.count + 1)
            var at = 0
            for (i, part) in parts.enumerated() {
                starts[i] = at
                if !part.isEmpty {
                    part.withUnsafeBytes {
                        (bytes.baseAddress! + at).copyMemory(
                            from: $0.baseAddress!, byteCount: $0.count)
                    }
                }
                at += part.count
            }
            starts[parts.count] = at
        }

        private func part(_ i: Int) -> UnsafeRawBufferPointer {
            UnsafeRawBufferPointer(
                start: bytes.baseAddress! + starts[i], count: starts[i + 1] - starts[i])
        }

        /// The bytes before the object's id.
        var object: UnsafeRawBufferPointer { part(0) }
        /// The bytes before field `i`'s value.
        func field(_ i: Int) -> UnsafeRawBufferPointer { part(i + 1) }
        /// The bytes after the last value.
        var end: UnsafeRawBufferPointer { part(starts.count - 2) }

        func deallocate() {
            bytes.deallocate()
            starts.deallocate()
        }
    }

    /// `CREATE TABLE` for `entity`, as the change feed makes it (``PostgreSQLTable``), with
    /// `UNIQUE` and `CREATE INDEX` where the schema says so.
    static func createTable(_ entity: Entity) -> String {
        PostgreSQLTable.create(entity, ifNotExists: false)
    }

    /// A double-quoted SQL identifier.
    static func identifier(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

extension ExportFormat {
    /// How values are written in this format.
    var valueFormat: AttributeValue.TextFormat {
        switch self {
        case .jsonl: return .json
        case .csv: return .csv
        case .sql: return .sql
        }
    }
}
