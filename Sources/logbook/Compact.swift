import LogStore

/// `logbook compact PATH`: rewrites the live records and reclaims dead bytes.
enum Compact: Subcommand {
    static let name = "compact"
    static let summary = "rewrite live records into new segments and reclaim dead bytes"
    static let positionals = ["PATH"]
    static let options: [OptionSpec] = []
    static let discussion = """
        Seals the active segment, copies the live records of every segment into new ones and \
        removes the old, then prints what it reclaimed. Crash-safe at every step (FORMAT.md, \
        "Compaction"). Takes the writer lock: a store open elsewhere for writing is refused \
        with one line and exit status 1.
        """

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let path = arguments.positionals[0]
        let store = try StoreAccess.openForWriting(path)
        defer { try? store.close() }
        let before = try store.stats()
        console.progress.show(
            "compact: rewriting \(Formatting.count(before.segments, "segment")), "
                + "\(Formatting.byteCount(before.fileBytes))…")
        let report = try store.compact()
        let after = try store.stats()
        console.progress.clear()
        var line = "compacted \(report.segmentsCompacted) segment"
        line += report.segmentsCompacted == 1 ? "" : "s"
        line += ": \(Formatting.byteCount(report.bytesReclaimed)) reclaimed, "
        line += "\(Formatting.byteCount(report.bytesWritten)) written in "
        line += Formatting.fixed(report.duration, digits: 2) + " s; now \(after.segments) segment"
        line += after.segments == 1 ? "" : "s"
        line += ", \(Formatting.byteCount(after.fileBytes)), space amplification "
        line += Formatting.fixed(after.spaceAmplification, digits: 2) + "x\n"
        console.out.write(line)
        return 0
    }
}
