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
            help: "only this entity (required for csv with several)"),
    ]
    static let discussion = """
        jsonl: a first line {"_schema": …} (so `logbook import` can create a new store), then one \
        line per object: {"_entity": "Employee", "_id": 1, "name": "Ann", …}. Dates are ISO 8601 \
        strings, Data is hex, UUIDs are strings.
        csv: one entity, a header row (id, then the attributes), RFC 4180 quoting.
        sql: CREATE TABLE and INSERT statements in one transaction that SQLite and PostgreSQL both \
        accept (Data as hex text, dates as ISO 8601 timestamps with time zone).
        Objects come entity by entity in schema order, by id. The store is opened read-only.
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
        if console.out.isTerminal { console.progress.isEnabled = false }
        let exporter = try Exporter(store: store, entity: arguments.value("entity"))
        var out = console.out
        try exporter.run(format, to: &out, progress: console.progress)
        return 0
    }
}
