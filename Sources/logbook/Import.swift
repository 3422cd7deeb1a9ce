import Foundation
import LogStore
import Logbook

/// `logbook import PATH FILE`: adds the objects of a JSON Lines file in one atomic save.
enum Import: Subcommand {
    static let name = "import"
    static let summary = "add the objects of a JSON Lines file in one atomic save"
    static let positionals = ["PATH", "FILE"]
    static let options = [
        OptionSpec(
            name: "format", valueName: "FORMAT",
            help: "jsonl or csv (default: csv for a .csv FILE, else jsonl)"),
        OptionSpec(name: "entity", valueName: "NAME", help: "the entity of a CSV file's rows"),
    ]
    static let discussion = """
        FILE is JSON Lines as `logbook export --format jsonl` writes it (`-` reads standard \
        input): one object per line, {"_entity": "Employee", "name": "Ann", …}. Every line is \
        checked against the store's schema first — an unknown entity or attribute, a value of \
        the wrong type, a missing required attribute — and the first problem is reported with \
        its line number; then all objects are saved as one batch, so either all are imported or \
        none. A store without a schema (or a new one: PATH is created if missing) takes the \
        file's {"_schema": …} line. Objects get new ids from the store. Takes the writer lock: \
        a store open elsewhere for writing is refused (exit status 1).

        CSV (--format csv, or a FILE ending in .csv) as `export --format csv` writes it: a \
        header row naming the attributes (an id column is skipped), rows of one entity named \
        by --entity, into a store that has a schema. An empty field is null for an optional \
        attribute and "" for a required string.
        """

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let path = arguments.positionals[0]
        let file = arguments.positionals[1]
        let label = file == "-" ? "standard input" : file
        let text: String
        if file == "-" {
            text = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
        } else {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw CommandError.cannotRun("cannot read \(file)")
            }
            text = String(decoding: data, as: UTF8.self)
        }
        var storeSchema: Schema?
        var uniqueValues: [String: [String: Set<String>]] = [:]
        switch StoreAccess.fileKind(path) {
        case .missing: break
        case .other: throw CommandError.cannotRun("\(path) is not a store: a store is a directory")
        case .directory:
            if case .success(let store) = try StoreAccess.openForReading(path) {
                defer { try? store.close() }
                if let decoder = try RecordDecoder.stored(in: store) {
                    storeSchema = decoder.schema
                    uniqueValues = try Self.uniqueValues(in: store, decoder: decoder)
                }
            }
        }
        let format = try arguments.choice(
            "format", of: ["jsonl", "csv"], default: file.hasSuffix(".csv") ? "csv" : "jsonl")
        let importer: Importer
        do {
            if format == "csv" {
                guard let name = arguments.value("entity") else {
                    throw CommandError.usage("a CSV import needs --entity NAME")
                }
                guard let entity = storeSchema?.entity(named: name) else {
                    throw CommandError.failed(
                        storeSchema == nil
                            ? "a CSV import needs a store with a schema; import JSON Lines first"
                            : "no entity \"\(name)\" in the store's schema")
                }
                importer = try Importer(csv: text, file: label, entity: entity)
            } else {
                importer = try Importer(text: text, file: label, storeSchema: storeSchema)
            }
            try importer.checkUniqueness(
                (storeSchema ?? importer.fileSchema)?.entities ?? [], existing: uniqueValues)
        } catch let error as Importer.LineError {
            throw CommandError.failed("\(error); nothing was imported")
        }
        let saved: Int
        do {
            saved = try ObjectWriter.save(
                importer.objects, schema: storeSchema == nil ? importer.fileSchema : nil,
                to: path)
        } catch let error as CommandError {
            throw error
        } catch {
            throw CommandError.failed("\(error); nothing was imported")
        }
        console.out.write("imported \(saved) objects into \(path)\n")
        return 0
    }

    /// The values of every unique attribute the store's objects hold, by entity and attribute
    /// (as JSON text), so import can name the line that would clash.
    private static func uniqueValues(in store: LogStore, decoder: RecordDecoder) throws
        -> [String: [String: Set<String>]]
    {
        var result: [String: [String: Set<String>]] = [:]
        for entity in decoder.schema.entities {
            let unique = Set(entity.attributes.filter(\.isUnique).map(\.name))
            guard !unique.isEmpty else { continue }
            try store.forEach(in: entity.name) { key, value in
                let object = try decoder.decode(keyspace: entity.name, key: key, value: value)
                for field in object.attributes
                where unique.contains(field.name) && field.value != .null {
                    result[entity.name, default: [:]][field.name, default: []].insert(
                        field.value.text(as: .json))
                }
            }
        }
        return result
    }
}
