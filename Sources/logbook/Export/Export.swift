import Foundation
import LogStore

/// `logbook export PATH --format jsonl|csv|sql`: the live objects, decoded, for other tools.
enum Export: Subcommand {
    static let name = "export"
    static let summary = "write the live objects as JSON Lines, CSV or SQL"
    static let positionals = ["PATH"]
    static let options = [
        OptionSpec(name: "format", valueName: "FORMAT", help: "jsonl (default), csv or sql"),
        OptionSpec(
            name: "entity", valueName: "NAME",
            help: "only this entity (csv of several entities needs it, or --output)"),
        OptionSpec(
            name: "output", valueName: "PATH",
            help: "write to this file instead of standard output; for csv a directory, "
                + "with one ENTITY.csv per entity"),
    ]
    static let discussion = """
        jsonl: a first line {"_schema": …} (so `logbook import` can create a new store), then one \
        line per object: {"_entity": "Employee", "_id": 1, "name": "Ann", …}. Dates are ISO 8601 \
        strings, Data is hex, UUIDs are strings (FORMAT.md, "Appendix — the JSON of the tools").
        csv: one entity (--entity), or every entity into --output DIR as DIR/ENTITY.csv; a \
        header row (id, then the attributes), RFC 4180 quoting.
        sql: CREATE TABLE and INSERT statements in one transaction, with the column types and \
        literals of `logbook changes --format sql` (BIGINT, DOUBLE PRECISION, BOOLEAN, TEXT, \
        TIMESTAMPTZ to the microsecond, BYTEA, UUID; NUMERIC for Decimal, arrays of scalars as \
        arrays, other arrays as JSONB, a composite as a column per field; UNIQUE checked at \
        commit), so a change \
        feed applies to the tables: the last line, `-- resume TOKEN`, is the token for \
        `logbook changes --since`. SQLite reads it too (Data as '\\x…' hex text there).
        Objects come entity by entity in schema order, by id. The store is opened read-only.
        \(TornTail.readOnlyHelp)
        """

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let path = arguments.positionals[0]
        let format = ExportFormat(
            rawValue: try arguments.choice(
                "format", of: ExportFormat.allCases.map(\.rawValue), default: "jsonl"))!
        let store: LogStore
        switch try StoreAccess.openForReading(path) {
        case .success(let s): store = s
        case .failure(let error): throw CommandError.failed("\(error)")
        }
        defer { try? store.close() }
        TornTail.warn(store.recovery, console)
        let entity = arguments.value("entity")
        guard let output = arguments.value("output") else {
            if console.out.isTerminal { console.progress.isEnabled = false }
            let exporter = try Exporter(store: store, entity: entity)
            try exporter.run(format, to: console.out, progress: console.progress)
            return 0
        }
        if format != .csv {
            let count = try write(to: output) { file in
                try Exporter(store: store, entity: entity).run(
                    format, to: file, progress: console.progress)
            }
            console.out.write("exported \(Formatting.count(count, "object")) to \(output)\n")
            return 0
        }
        if StoreAccess.fileKind(output) == .missing {
            do {
                try FileManager.default.createDirectory(
                    atPath: output, withIntermediateDirectories: true)
            } catch {
                throw CommandError.cannotRun("cannot create the directory \(output): \(error)")
            }
        }
        let names =
            try entity.map { [$0] } ?? Exporter(store: store, entity: nil).entities.map(\.name)
        for name in names {
            let file = output + "/" + name + ".csv"
            let count = try write(to: file) { out in
                try Exporter(store: store, entity: name).run(
                    .csv, to: out, progress: console.progress)
            }
            console.out.write("exported \(Formatting.count(count, "object")) to \(file)\n")
        }
        return 0
    }

    /// Creates (or truncates) `path`, owner-only, and lets `body` write to it.
    /// - Throws: ``CommandError/cannotRun(_:)`` if the file cannot be created or written; what
    ///   `body` throws.
    private static func write(to path: String, _ body: (FileOutput) throws -> Int) throws -> Int {
        guard let file = FileOutput(creating: path) else {
            throw CommandError.cannotRun(
                "cannot create \(path): \(String(cString: strerror(errno)))")
        }
        let count = try body(file)
        guard file.close() else {
            throw CommandError.cannotRun(
                "cannot write \(path): \(String(cString: strerror(errno)))")
        }
        return count
    }
}
