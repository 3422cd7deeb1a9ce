import LogStore

/// `logbook stats PATH`: sizes and counts of a store.
enum Stats: Subcommand {
    static let name = "stats"
    static let summary = "show entities, object and key counts, live and dead bytes, segments"
    static let positionals = ["PATH"]
    static let options = [
        OptionSpec(name: "format", valueName: "FORMAT", help: "text (default) or json")
    ]
    static let discussion = """
        Live bytes are the bytes of segment files that hold current records; dead bytes are \
        overwritten, deleted or framing-only data that compaction reclaims. Space amplification \
        is file bytes per live byte. The store is opened read-only.
        \(TornTail.readOnlyHelp)
        """

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let path = arguments.positionals[0]
        let format = try arguments.choice("format", of: ["text", "json"], default: "text")
        let store: LogStore
        switch try StoreAccess.openForReading(path) {
        case .success(let s): store = s
        case .failure(let error):
            throw CommandError.failed("\(error)")
        }
        defer { try? store.close() }
        TornTail.warn(store.recovery, console)
        let report = try StoreStatistics(store: store)
        if format == "json" {
            report.writeJSON(to: console.out)
        } else {
            report.writeText(to: console.out)
        }
        if let error = report.schemaError {
            console.error("the stored schema does not decode, so objects are not counted: \(error)")
            return 1
        }
        return 0
    }
}
