import Foundation
import LogStore
import Logbook

/// The figures `logbook stats` shows, gathered from an open store. A value type.
struct StoreStatistics {
    /// The engine's figures.
    let engine: LogStoreStats
    /// Schema version, or `nil` for a store without a schema.
    let schemaVersion: UInt32?
    /// Objects per entity, in schema order.
    let entities: [(name: String, objects: Int)]
    /// What the read-only open skipped (a torn tail).
    let droppedTailBytes: Int64
    /// Why the stored schema does not decode, if it does not (then no entities are counted).
    let schemaError: String?
    /// Hint files in the directory (each lets open skip scanning its segment).
    let hintFiles: Int
    /// The indexes with their entries and memory, from the index sidecar; `nil` when the
    /// schema has indexes that no current sidecar describes (opening the store builds them).
    let indexes: [IndexStatistics]?

    /// Reads the figures of `store`.
    /// - Throws: ``LogStoreError`` (a closed store) or the object layer's error for a damaged
    ///   schema.
    init(store: LogStore) throws {
        engine = try store.stats()
        var schema: Schema?
        do {
            schema = try Schema.stored(in: store)
            schemaError = nil
        } catch {
            schemaError = "\(error)"
        }
        schemaVersion = schema?.version
        entities = try (schema?.entities ?? []).map { ($0.name, try store.count(in: $0.name)) }
        droppedTailBytes = store.recovery.droppedTailBytes
        hintFiles = (try? StoreFiles(storeAt: store.path))?.hints.count ?? 0
        indexes = schema == nil ? [] : ((try? IndexStatistics.stored(in: store)) ?? nil)
    }

    /// Aligned `name  value` lines, then the keyspaces and entities.
    func writeText(to output: FileOutput) {
        var table = AlignedTable()
        table.append(["segments", String(engine.segments)])
        table.append(["hint files", String(hintFiles)])
        table.append(["file bytes", Self.bytes(engine.fileBytes)])
        table.append(["live bytes", Self.bytes(engine.liveBytes)])
        table.append(["dead bytes", Self.bytes(engine.deadBytes)])
        table.append([
            "space amplification", Formatting.fixed(engine.spaceAmplification, digits: 2) + "x",
        ])
        table.append(["last sequence", String(engine.lastSequence)])
        table.append([
            "schema version",
            schemaVersion.map(String.init)
                ?? (schemaError == nil ? "none (no Logbook schema)" : "damaged: does not decode"),
        ])
        if droppedTailBytes > 0 {
            table.append(["torn tail ignored", Self.bytes(droppedTailBytes)])
        }
        table.flush(to: output)
        if !entities.isEmpty {
            output.write("\n")
            var rows = AlignedTable(rightAligned: [1])
            rows.append(["ENTITY", "OBJECTS"])
            for entity in entities { rows.append([entity.name, String(entity.objects)]) }
            rows.flush(to: output)
        }
        if let indexes, !indexes.isEmpty {
            output.write("\n")
            var rows = AlignedTable(rightAligned: [1, 2])
            rows.append(["INDEX", "ENTRIES", "MEMORY"])
            for index in indexes {
                rows.append([
                    Self.name(of: index), String(index.entries),
                    Self.bytes(Int64(index.memoryBytes)),
                ])
            }
            rows.flush(to: output)
        } else if indexes == nil {
            output.write("\nindexes: no current index sidecar (opening the store builds them)\n")
        }
        output.write("\n")
        var rows = AlignedTable(rightAligned: [1, 2])
        rows.append(["KEYSPACE", "KEYS", "LIVE BYTES"])
        for keyspace in engine.keyspaces {
            rows.append([keyspace.name, String(keyspace.keys), String(keyspace.liveBytes)])
        }
        rows.flush(to: output)
    }

    /// One JSON object.
    func writeJSON(to output: FileOutput) {
        let keyspaces = engine.keyspaces.map {
            "{\"name\":\(Formatting.quoted($0.name)),\"keys\":\($0.keys),\"liveBytes\":\($0.liveBytes)}"
        }
        let entityList = entities.map {
            "{\"name\":\(Formatting.quoted($0.name)),\"objects\":\($0.objects)}"
        }
        var members = [
            "\"segments\":\(engine.segments)",
            "\"hintFiles\":\(hintFiles)",
            "\"fileBytes\":\(engine.fileBytes)",
            "\"liveBytes\":\(engine.liveBytes)",
            "\"deadBytes\":\(engine.deadBytes)",
            "\"spaceAmplification\":\(Formatting.fixed(engine.spaceAmplification, digits: 4))",
            "\"lastSequence\":\(engine.lastSequence)",
            "\"schemaVersion\":\(schemaVersion.map(String.init) ?? "null")",
        ]
        members.append("\"droppedTailBytes\":\(droppedTailBytes)")
        members.append("\"entities\":[\(entityList.joined(separator: ","))]")
        members.append("\"keyspaces\":[\(keyspaces.joined(separator: ","))]")
        let indexList = indexes.map { indexes in
            "["
                + indexes.map {
                    "{\"entity\":\(Formatting.quoted($0.entity)),\"fields\":["
                        + $0.fields.map(Formatting.quoted).joined(separator: ",")
                        + "],\"unique\":\($0.isUnique),\"entries\":\($0.entries),"
                        + "\"memoryBytes\":\($0.memoryBytes)}"
                }.joined(separator: ",") + "]"
        }
        members.append("\"indexes\":\(indexList ?? "null")")
        output.write("{" + members.joined(separator: ",") + "}\n")
    }

    /// `Employee(designation, salary)`, with ` unique` for a unique constraint.
    private static func name(of index: IndexStatistics) -> String {
        "\(index.entity)(\(index.fields.joined(separator: ", ")))\(index.isUnique ? " unique" : "")"
    }

    private static func bytes(_ count: Int64) -> String {
        count < 1024 ? "\(count) B" : "\(count) B (\(Formatting.byteCount(count)))"
    }
}
