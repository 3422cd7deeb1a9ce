import LogStore

/// `logbook verify PATH`: checks a store and reports each problem with file and offset.
enum Verify: Subcommand {
    static let name = "verify"
    static let summary = "check every checksum, header, frame, record and hint file"
    static let positionals = ["PATH"]
    static let options = [
        OptionSpec(
            name: "strict", valueName: nil,
            help: "count warnings (torn tail, unusable hint, leftover or cut file) as damage"
        ),
        OptionSpec(name: "quiet", valueName: nil, help: "print only the summary line"),
        OptionSpec(
            name: "discard-cut", valueName: nil,
            help: "remove the bytes recovery cut from torn tails and kept aside (*.cut), then check"
        ),
    ]
    static let discussion = """
        Checks the store by the same rules, from the same code, as opening it: every file \
        header (its checksum before its version), frame boundary and CRC32C, every record and \
        keyspace number, the torn-tail rule of the newest segment, and every hint file against \
        its segment; then that every object record decodes with the stored schema, and that \
        every to-one relationship points at an object that exists. Each problem is printed \
        with its file and offset, then one summary line. The store is opened read-only and \
        nothing is changed (but for --discard-cut); memory stays bounded however large it is.

        A torn tail — an incomplete last commit in the newest segment, which is what a crash \
        during a write leaves — is a warning, not damage: no acknowledged commit is in it and \
        the next open for writing cuts it, keeping the cut bytes in a *.cut file beside the \
        segments. So is a hint file that open would ignore (it scans the segment instead: \
        slower, never wrong), a *.tmp file left by an interrupted compaction (the next open \
        for writing removes it), a segment salvage mode moved aside (*.seg.damaged), and a \
        *.cut file (removed by the next compaction, or now with --discard-cut). With --strict \
        every warning counts as damage.

        Exit status: 0 clean (warnings allowed), 1 damage found, 2 could not run (no store, or \
        a format version newer than this tool reads).
        """

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let path = arguments.positionals[0]
        let out = console.out
        if arguments.has("discard-cut") {
            try StoreAccess.requireStoreDirectory(path)
            for removed in try LogInspector.discardCutFiles(storeAt: path) {
                out.write("removed \(removed)\n")
            }
        }
        let verifier = Verifier(path: path, strict: arguments.has("strict"))
        let outcome = try verifier.run(progress: console.progress)
        console.progress.clear()
        if !arguments.has("quiet") {
            for finding in outcome.errors { out.write("error: \(finding.description)\n") }
            for finding in outcome.warnings { out.write("warning: \(finding.description)\n") }
        }
        out.write("verify: \(outcome.summary)\n")
        return outcome.isDamaged ? 1 : 0
    }
}

extension VerifyOutcome {
    /// `OK: 1 segment, 3 commits, …; 0 errors, 0 warnings` (or `DAMAGED: …`): the last line of
    /// `logbook verify`, after `verify: `.
    var summary: String {
        let s = report
        var line = isDamaged ? "DAMAGED: " : "OK: "
        line += Formatting.count(s.segments, "segment") + ", "
        line += Formatting.count(s.commits, "commit") + ", "
        line += Formatting.count(s.records, "record") + ", "
        line += Formatting.byteCount(s.bytes) + ", last sequence \(s.lastSequence)"
        if objectsChecked > 0 {
            line += ", " + Formatting.count(objectsChecked, "object record") + " decoded"
        }
        line += "; " + Formatting.count(errors.count, "error") + ", "
        return line + Formatting.count(warnings.count, "warning")
    }
}
