/// `logbook verify PATH`: checks a store and reports each problem with file and offset.
enum Verify: Subcommand {
    static let name = "verify"
    static let summary = "check every checksum, header, frame, record and the index"
    static let positionals = ["PATH"]
    static let options = [
        OptionSpec(name: "strict", valueName: nil, help: "count a torn tail as damage"),
        OptionSpec(name: "quiet", valueName: nil, help: "print only the summary line"),
    ]
    static let discussion = """
        Checks every file header, frame boundary and CRC32C, every record, that the store opens \
        read-only and that its index holds exactly what a replay of the log gives, and that every \
        object record decodes with the stored schema. Each problem is printed with its file and \
        offset, then one summary line.

        A torn tail — an incomplete last commit in the newest segment, which is what a crash \
        during a write leaves — is a warning, not damage: no acknowledged commit is in it and \
        the next open for writing cuts it. With --strict it counts as damage.

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
        line += "\(s.segments) segment\(s.segments == 1 ? "" : "s"), \(s.commits) commits, "
        line += "\(s.records) records, \(Formatting.byteCount(s.bytes)), last sequence "
        line += "\(s.lastSequence), \(report.keys) keys in \(report.keyspaces) keyspaces"
        if report.objectsChecked > 0 { line += ", \(report.objectsChecked) objects decoded" }
        line += "; \(report.errors.count) error\(report.errors.count == 1 ? "" : "s")"
        line += ", \(report.warnings.count) warning\(report.warnings.count == 1 ? "" : "s")\n"
        out.write(line)
        return report.isDamaged ? 1 : 0
    }
}
