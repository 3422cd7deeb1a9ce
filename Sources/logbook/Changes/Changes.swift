import Foundation
import LogStore
import Logbook

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `logbook changes PATH [--since TOKEN] --format jsonl|sql [--follow]`: the saves after a token
/// as upserts and deletes, then the token to resume from — a change feed, for example into
/// PostgreSQL (`| psql`).
enum Changes: Subcommand {
    static let name = "changes"
    static let summary = "write the saves after a token as upserts and deletes (a change feed)"
    static let positionals = ["PATH"]
    static let options = [
        HistoryAccess.sinceOption,
        OptionSpec(
            name: "format", valueName: "FORMAT", help: "jsonl (default) or sql (PostgreSQL)"),
        OptionSpec(
            name: "follow", valueName: nil,
            help: "keep writing saves as another process makes them, until SIGINT or SIGTERM"),
    ]
    static let discussion = """
        Each insert or update is an upsert carrying the object's whole stored state after the \
        save; each delete names the object. Applied in order, from any token at or before the \
        last one applied, they leave the target with exactly the store's objects.
        sql: CREATE TABLE IF NOT EXISTS for every entity, as `logbook export --format sql` \
        makes it (BIGINT, DOUBLE PRECISION, BOOLEAN, TEXT, TIMESTAMPTZ, BYTEA, UUID; NUMERIC \
        for Decimal, arrays of scalars as arrays, other arrays as JSONB, a composite as a \
        column per field; UNIQUE checked at commit), then per save BEGIN; DELETE …; INSERT … ON CONFLICT ("id") DO \
        UPDATE …; COMMIT; and a `-- token TOKEN` line. The last line is `-- resume TOKEN`.
        jsonl: per change {"_op": "upsert"|"delete", "_entity": …, "_id": …, fields…}, per save \
        {"_token": …, "_sequence": …, "_time": …, "_author": …}; the last line {"_resume": TOKEN}.
        On a terminal, standard error shows the changes and saves written and their rate (never \
        when it is piped, nor when the changes themselves go to the terminal).
        --follow reads through the read-only open while another process writes; on SIGINT or \
        SIGTERM it finishes the save it is writing, writes the resume token and exits with 0.
        A token of another store, one ahead of the store, or one older than its retention keeps \
        is an error (exit status 1).
        \(TornTail.readOnlyHelp)
        """

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let path = arguments.positionals[0]
        let format = ChangeFeedFormat(
            rawValue: try arguments.choice(
                "format", of: ChangeFeedFormat.allCases.map(\.rawValue), default: "jsonl"))!
        let since = try HistoryAccess.since(arguments)
        let follow = arguments.has("follow")
        if follow { StopSignal.install() }
        let container = try HistoryAccess.open(path)
        TornTail.warn(container.store.recovery, console)
        defer { try? container.close() }
        let reader = try HistoryAccess.reporting {
            try container.historyReader(after: since, follow: follow, values: true)
        }
        let writer = ChangeFeedWriter(format: format, schema: container.schema)
        let out = console.out
        // Changes streaming to the terminal show their own progress.
        if out.isTerminal { console.progress.isEnabled = false }
        let progress = console.progress
        let meter = ProgressMeter("changes", unit: "changes")
        var saves = 0
        var changes = 0
        func describe() -> String {
            meter.describe(done: changes) + " in \(Formatting.count(saves, "save"))"
                + (follow ? ", following" : "")
        }
        out.write(writer.header())
        repeat {
            while !StopSignal.isRequested,
                let transaction = try HistoryAccess.reporting({ try reader.next() })
            {
                out.render { writer.write(transaction, to: &$0) }
                saves += 1
                changes += transaction.changes.count
                if progress.isDue() { progress.show(describe()) }
            }
            guard follow, !StopSignal.isRequested else { break }
            out.flush()
            progress.update(describe())
            usleep(50_000)
        } while !StopSignal.isRequested
        out.write(writer.footer(resume: reader.token))
        return 0
    }
}
