import LogStore

/// The formats of `logbook export`.
enum ExportFormat: String, CaseIterable {
    /// A `{"_schema": …}` line, then one `{"_entity": …, "_id": …, attributes…}` line per object.
    case jsonl
    /// One entity: a header row `id,attribute,…`, then one row per object (RFC 4180).
    case csv
    /// `CREATE TABLE` and `INSERT` statements in one transaction, for SQLite and PostgreSQL.
    case sql
}

/// Writes the live objects of a store, decoded with its stored schema, as JSON Lines, CSV or
/// SQL. Objects come entity by entity in schema order, each entity's in primary-key order, so
/// the output of a store is always the same. A library-style function behind `logbook export`.
///
/// Reads only (the store is opened read-only by the caller). Memory: one entity's objects.
struct Exporter {
    /// The store, open (read-only) for the exporter's lifetime.
    let store: LogStore
    /// Its schema.
    let schema: StoredSchema
    /// The entities to export, in schema order.
    let entities: [EntityInfo]

    /// An exporter of `entity` (every entity if `nil`) of `store`.
    /// - Throws: ``CommandError`` if the store has no schema or no such entity.
    init(store: LogStore, entity: String?) throws {
        guard let schema = try StoredSchema.read(from: store) else {
            throw CommandError.failed(
                "the store at \(store.path) holds no Logbook schema, so it has no objects to "
                    + "export; `logbook dump` shows its raw records")
        }
        self.store = store
        self.schema = schema
        if let entity {
            guard let info = schema.entity(named: entity) else {
                throw CommandError.usage(
                    "no entity \"\(entity)\" in the stored schema (it has "
                        + schema.entities.map(\.name).joined(separator: ", ") + ")")
            }
            entities = [info]
        } else {
            entities = schema.entities
        }
    }

    /// Writes every object in `format`; returns how many.
    /// - Throws: ``CommandError/usage(_:)`` for CSV of several entities; the object layer's
    ///   error for a record that does not decode.
    @discardableResult
    func run(_ format: ExportFormat, to output: inout some TextOutputStream, progress: ProgressLine)
        throws -> Int
    {
        if format == .csv && entities.count != 1 {
            throw CommandError.usage(
                "CSV holds one entity; pick one with --entity ("
                    + entities.map(\.name).joined(separator: ", ") + ")")
        }
        var count = 0
        switch format {
        case .jsonl: output.write("{\"_schema\":\(SchemaJSON.encode(schema))}\n")
        case .csv:
            output.write(
                (["id"] + entities[0].attributes.map(\.name)).map { FieldValue.string($0).csv }
                    .joined(separator: ",") + "\r\n")
        case .sql:
            output.write("-- exported by logbook from \(store.path), schema version ")
            output.write("\(schema.version)\n-- Data attributes are hex text.\nBEGIN;\n")
        }
        for entity in entities {
            if format == .sql { output.write(Self.createTable(entity)) }
            let objects = try objects(of: entity)
            for (i, object) in objects.enumerated() {
                progress.update("export: \(entity.name), \(i) of \(objects.count) objects")
                switch format {
                case .jsonl:
                    let fields =
                        [("_entity", Formatting.quoted(entity.name)), ("_id", String(object.id))]
                        + object.fields.map { ($0.name, $0.value.json) }
                    output.write(
                        "{"
                            + fields.map { Formatting.quoted($0.0) + ":" + $0.1 }
                            .joined(separator: ",") + "}\n")
                case .csv:
                    output.write(
                        ([String(object.id)] + object.fields.map(\.value.csv))
                            .joined(separator: ",") + "\r\n")
                case .sql:
                    let columns = (["id"] + object.fields.map(\.name)).map(Self.identifier)
                    let values = [String(object.id)] + object.fields.map(\.value.sqlLiteral)
                    output.write(
                        "INSERT INTO \(Self.identifier(entity.name)) ("
                            + columns.joined(separator: ", ") + ") VALUES ("
                            + values.joined(separator: ", ") + ");\n")
                }
                count += 1
            }
        }
        if format == .sql { output.write("COMMIT;\n") }
        return count
    }

    /// The live objects of `entity`, in primary-key order.
    private func objects(of entity: EntityInfo) throws -> [DecodedObject] {
        var result: [DecodedObject] = []
        try store.forEach(in: entity.name) { key, value in
            if let object = try schema.decode(
                keyspace: entity.name, key: [UInt8](key), value: [UInt8](value))
            {
                result.append(object)
            }
        }
        return result.sorted { $0.id < $1.id }
    }

    /// `CREATE TABLE` for `entity`: `id BIGINT PRIMARY KEY`, then a column per attribute
    /// (`NOT NULL` unless optional, `UNIQUE` where the schema says so).
    static func createTable(_ entity: EntityInfo) -> String {
        var columns = ["  \"id\" BIGINT PRIMARY KEY"]
        for attribute in entity.attributes {
            var column = "  \(identifier(attribute.name)) \(attribute.type.sqlType)"
            if !attribute.isOptional { column += " NOT NULL" }
            if attribute.isUnique { column += " UNIQUE" }
            columns.append(column)
        }
        var text = "CREATE TABLE \(identifier(entity.name)) (\n"
        text += columns.joined(separator: ",\n") + "\n);\n"
        for attribute in entity.attributes where attribute.isIndexed && !attribute.isUnique {
            text += "CREATE INDEX \(identifier(entity.name + "_" + attribute.name)) ON "
            text += "\(identifier(entity.name)) (\(identifier(attribute.name)));\n"
        }
        return text
    }

    /// A double-quoted SQL identifier.
    static func identifier(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

/// The schema as JSON, for the first line of a JSON Lines export (so `import` can create a new
/// store with it): `{"version":1,"entities":[{"name":…,"attributes":[{"name":…,"type":"String",
/// "optional":false,"indexed":false,"unique":false,"default":null}]}]}`.
enum SchemaJSON {
    /// Encodes `schema`.
    static func encode(_ schema: StoredSchema) -> String {
        let entities = schema.entities.map { entity in
            let attributes = entity.attributes.map { a in
                "{\"name\":\(Formatting.quoted(a.name)),\"type\":\(Formatting.quoted(a.type.rawValue)),"
                    + "\"optional\":\(a.isOptional),\"indexed\":\(a.isIndexed),"
                    + "\"unique\":\(a.isUnique),\"default\":\(a.defaultValue?.json ?? "null")}"
            }
            return "{\"name\":\(Formatting.quoted(entity.name)),\"attributes\":["
                + attributes.joined(separator: ",") + "]}"
        }
        return "{\"version\":\(schema.version),\"entities\":[" + entities.joined(separator: ",")
            + "]}"
    }

    /// Decodes what ``encode(_:)`` writes.
    /// - Throws: a message saying what is missing or wrong.
    static func decode(_ json: JSONValue) throws -> [EntityInfo] {
        guard case .array(let list)? = json["entities"] else {
            throw CommandError.failed("the schema has no \"entities\" list")
        }
        return try list.map { entity in
            guard let name = entity["name"]?.string,
                case .array(let attributes)? = entity["attributes"]
            else { throw CommandError.failed("an entity of the schema lacks a name or attributes") }
            return EntityInfo(
                name: name,
                attributes: try attributes.map { a in
                    guard let attributeName = a["name"]?.string,
                        let type = a["type"]?.string.flatMap(FieldType.init(rawValue:))
                    else {
                        throw CommandError.failed(
                            "an attribute of \(name) lacks a name or a known type")
                    }
                    var defaultValue: FieldValue?
                    if let json = a["default"], json != .null {
                        guard let value = FieldValue.fromJSON(json, as: type) else {
                            throw CommandError.failed(
                                "the default of \(name).\(attributeName) is not a \(type.rawValue)")
                        }
                        defaultValue = value
                    }
                    return AttributeInfo(
                        name: attributeName, type: type, isOptional: a["optional"] == .bool(true),
                        defaultValue: defaultValue, isIndexed: a["indexed"] == .bool(true),
                        isUnique: a["unique"] == .bool(true))
                })
        }
    }
}
