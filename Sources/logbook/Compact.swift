import LogStore

/// `logbook compact PATH`: rewrites the live records and reclaims dead bytes.
enum Compact: Subcommand {
    static let name = "compact"
    static let summary = "rewrite live records into new segments and reclaim dead bytes"
    static let positionals = ["PATH"]
    static let options: [OptionSpec] = []
    static let discussion = """
        Takes the writer lock: a store open elsewhere for writing is refused with one line and \
        exit status 1. Crash-safe at every step (FORMAT.md, "Compaction").
        """

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let store = try StoreAccess.openForWriting(arguments.positionals[0])
        defer { try? store.close() }
        throw CommandError.failed("compaction is not in this build of LogStore yet")
    }
}
