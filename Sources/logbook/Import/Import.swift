import Foundation
import LogStore
import Logbook

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `logbook import PATH FILE`: adds the objects of a JSON Lines or CSV file in one atomic
/// commit.
enum Import: Subcommand {
    static let name = "import"
    static let summary = "add the objects of a JSON Lines or CSV file in one atomic commit"
    static let positionals = ["PATH", "FILE"]
    static let options = [
        OptionSpec(
            name: "format", valueName: "FORMAT",
            help: "jsonl or csv (default: csv for a .csv FILE, else jsonl)"),
        OptionSpec(name: "entity", valueName: "NAME", help: "the entity of a CSV file's rows"),
    ]
    static let discussion = """
        FILE is JSON Lines as `logbook export --format jsonl` writes it (`-` reads standard \
        input): one object per line, {"_entity": "Employee", "name": "Ann", …}. Lines are read \
        and saved a few megabytes at a time into one atomic commit: either every object is \
        imported or none is, also when the import is interrupted. Every line is checked against \
        the store's schema — an unknown entity or attribute, a value of the wrong type, a missing \
        required attribute, a repeated unique value — and the first problem is reported with its \
        line number; then nothing is imported. A store without a schema (or a new one: PATH is \
        created if missing, and removed again if the import fails) takes the file's \
        {"_schema": …} line, which must come before the objects. Relationships are read as \
        export writes them (a to-one's _id, a link list), naming objects of the file by their \
        _id: an object with one gets _id plus the last key its entity had, so an export \
        imported into an empty store keeps its keys. Takes the writer lock: a store open elsewhere for writing is refused (exit \
        status 1).

        CSV (--format csv, or a FILE ending in .csv) as `export --format csv` writes it: a \
        header row naming the columns, rows of one entity named by --entity, into a store that \
        has a schema. An empty field is null for an optional attribute and "" for a required \
        string. The id column is the _id above. A relationship column holds a to-one's key or a \
        many-to-many's link list, as export writes them: keys of this file's objects within \
        the entity's own hierarchy, and otherwise keys of objects already in the store (import \
        the file of the entity they name first; in a cycle, use JSON Lines).
        \(TornTail.writerHelp)
        """

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let path = arguments.positionals[0]
        let file = arguments.positionals[1]
        let label = file == "-" ? "standard input" : file
        guard let input = InputReader(path: file) else {
            throw CommandError.cannotRun("cannot read \(file): \(String(cString: strerror(errno)))")
        }
        var storeSchema: Schema?
        var unique = UniqueValues()
        let storeExisted: Bool
        switch StoreAccess.fileKind(path) {
        case .missing: storeExisted = false
        case .other: throw CommandError.cannotRun("\(path) is not a store: a store is a directory")
        case .directory:
            storeExisted = true
            switch try StoreAccess.openForReading(path) {
            case .success(let store):
                defer { try? store.close() }
                if let decoder = try RecordDecoder.stored(in: store) {
                    storeSchema = decoder.schema
                    unique = try UniqueValues(of: store, decoder: decoder)
                }
            case .failure(let error):
                // Damage: said as such, not as a store without a schema.
                throw CommandError.failed("\(error); nothing was imported")
            }
        }
        let format = try arguments.choice(
            "format", of: ["jsonl", "csv"], default: file.hasSuffix(".csv") ? "csv" : "jsonl")
        var source: any ImportSource
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
            source = CSVSource(input: input, file: label, entity: entity)
        } else {
            source = JSONLinesSource(input: input, file: label, storeSchema: storeSchema)
        }
        let saver = ObjectSaver(
            path: path, storeHasSchema: storeSchema != nil, file: label,
            fileEntity: format == "csv" ? arguments.value("entity") : nil)
        let meter = ProgressMeter("import")
        let size = input.fileSize
        let saved: Int
        do {
            var read: Int64 = 0
            while let object = try source.next() {
                try unique.add(object, file: label)
                try saver.insert(
                    object, bytes: Int(input.consumed - read), fileSchema: source.fileSchema)
                read = input.consumed
                if console.progress.isDue() {
                    console.progress.show(
                        meter.describe(
                            done: saver.count,
                            fraction: size.map { Double(input.consumed) / Double(max($0, 1)) }))
                }
            }
            if let failure = input.failure {
                throw CommandError.failed(
                    "cannot read \(label): \(String(cString: strerror(failure))); nothing was imported"
                )
            }
            console.progress.show(
                "import: finishing the commit of \(Formatting.count(saver.count, "object"))…")
            saved = try saver.finish(fileSchema: source.fileSchema)
            TornTail.warn(saver.recovery, console)
        } catch {
            console.progress.clear()
            saver.abandon()
            // A store this import created and did not fill is removed again.
            if !storeExisted { try? FileManager.default.removeItem(atPath: path) }
            switch error {
            case let error as CommandError: throw error
            case is InputReader.ItemTooLong:
                throw CommandError.failed(
                    "\(label): a line longer than \(InputReader.maximumItem >> 20) MiB; "
                        + "nothing was imported")
            default: throw CommandError.failed("\(error); nothing was imported")
            }
        }
        console.progress.clear()
        console.out.write("imported \(saved) objects into \(path)\n")
        return 0
    }
}
