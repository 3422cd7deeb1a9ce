/// `logbook dump PATH`: every record in log order, decoded with the stored schema.
enum Dump: Subcommand {
    static let name = "dump"
    static let summary = "print every record in log order, objects decoded by the stored schema"
    static let positionals = ["PATH"]
    static let options = [
        OptionSpec(
            name: "entity", valueName: "NAME", help: "only records of this entity or keyspace"),
        OptionSpec(
            name: "where", valueName: "EXPR",
            help:
                "only object puts matching EXPR, e.g. 'salary > 1000 AND name BEGINSWITH[c] \"a\"'"
        ),
        OptionSpec(
            name: "live", valueName: nil, help: "only current values (no history, no deletes)"),
        OptionSpec(name: "format", valueName: "FORMAT", help: "text (default), json or jsonl"),
        OptionSpec(name: "limit", valueName: "N", help: "stop after N records"),
    ]
    static let discussion = """
        Columns: segment file, record offset, sequence number, type (put, delete, \
        define-keyspace), keyspace, key, value. Objects show their id and attribute=value pairs; \
        records without a schema show keys and values as "text" when printable UTF-8, else 0x hex.
        JSON output has one object per record with segment, frameOffset, offset, sequence, type, \
        keyspace, keyHex/key and either entity/id/version/object, schema or valueHex/value; \
        FORMAT.md, "Appendix — the JSON of the tools", gives every key and how each type of \
        value is written. Every stored schema version is shown; records of older versions are \
        decoded in the newest version's layout, to-one relationships as the related object's id.
        Damage is skipped, each damaged region with a line on standard error (exit status 1); \
        run `logbook verify` for details. The store is opened read-only.
        \(TornTail.readOnlyHelp)
        """

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let path = arguments.positionals[0]
        var options = DumpOptions()
        options.entity = arguments.value("entity")
        options.predicate = arguments.value("where")
        options.live = arguments.has("live")
        options.limit = try arguments.count("limit")
        options.format = OutputFormat(
            rawValue: try arguments.choice(
                "format", of: OutputFormat.allCases.map(\.rawValue), default: "text"))!
        if console.out.isTerminal { console.progress.isEnabled = false }
        let dumper = try Dumper(path: path, options: options)
        for warning in dumper.warnings { console.error("warning: " + warning) }
        let summary = try dumper.run(to: console.out, progress: console.progress)
        let problems = summary?.problems ?? []
        // A segment that is gone now was replaced by the writer's compaction mid-read: the
        // dump missed records, but the store is not damaged.
        if let gone = problems.first(where: { StoreAccess.fileKind($0.path) == .missing }) {
            console.error(
                "the store was compacted while it was read (\(gone.path) is gone), so this dump "
                    + "misses records; run it again")
            return 1
        }
        for problem in problems {
            console.error(
                (problem.isTornTail ? "warning: " : "skipped damage: ") + problem.description)
        }
        return problems.contains { !$0.isTornTail } ? 1 : 0
    }
}
