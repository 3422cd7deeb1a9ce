/// `logbook verify PATH`: checks a store and reports each problem with file and offset.
enum Verify: Subcommand {
    static let name = "verify"
    static let summary = "check every checksum, header, frame, record and the index"
    static let positionals = ["PATH"]
    static let options = [
        OptionSpec(
            name: "strict", valueName: nil,
            help: "count warnings (torn tail, stale hint, leftover .tmp file) as damage"
        ),
        OptionSpec(name: "quiet", valueName: nil, help: "print only the summary line"),
    ]
    static let discussion = """
        Checks every file header, frame boundary and CRC32C, every record, every hint file \
        against its segment, that the store opens read-only and that its index holds exactly \
        what a replay of the log gives, that every object record decodes with the stored \
        schema, and that every to-one relationship points at an object that exists. Each \
        problem is printed with its file and offset, then one summary line.

        A torn tail — an incomplete last commit in the newest segment, which is what a crash \
        during a write leaves — is a warning, not damage: no acknowledged commit is in it and \
        the next open for writing cuts it. So is a hint file that does not match its segment \
        (open ignores it and scans the segment: slower, never wrong), and so is a *.tmp file \
        left by an interrupted compaction (the next open for writing removes it). With \
        --strict every warning counts as damage.

        Exit status: 0 clean (warnings allowed), 1 damage found, 2 could not run (no store, or \
        a format version newer than this tool reads). The store is opened read-only.
        """

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let verifier = Verifier(path: arguments.positionals[0], strict: arguments.has("strict"))
        let report = try verifier.run(progress: console.progress)
        console.progress.clear()
        let out = console.out
        if !arguments.has("quiet") {
            for finding in report.errors { out.write("error: \(finding.description)\n") }
            for finding in report.warnings { out.write("warning: \(finding.description)\n") }
        }
        guard let s = report.summary else { return 2 }
        var line = report.isDamaged ? "verify: DAMAGED: " : "verify: OK: "
        line += Formatting.count(s.segments, "segment") + ", "
        line += Formatting.count(s.commits, "commit") + ", "
        line += Formatting.count(s.records, "record") + ", "
        line += Formatting.byteCount(s.bytes) + ", last sequence \(s.lastSequence), "
        line += Formatting.count(report.keys, "key") + " in "
        line += Formatting.count(report.keyspaces, "keyspace")
        if report.objectsChecked > 0 {
            line += ", " + Formatting.count(report.objectsChecked, "object record") + " decoded"
        }
        line += "; " + Formatting.count(report.errors.count, "error") + ", "
        line += Formatting.count(report.warnings.count, "warning") + "\n"
        out.write(line)
        return report.isDamaged ? 1 : 0
    }
}
