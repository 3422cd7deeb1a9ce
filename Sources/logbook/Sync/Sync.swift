import Foundation
import LogStore
import Logbook

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `logbook sync PATH URL [--once | --status | --setup] [--name NAME]`: keeps a store in
/// two-way sync with a PostgreSQL database, as an app's ``PostgreSQLReplica`` does.
enum Sync: Subcommand {
    static let name = "sync"
    static let summary = "keep a store in two-way sync with a PostgreSQL database"
    static let positionals = ["PATH", "URL"]
    static let options = [
        OptionSpec(
            name: "once", valueName: nil,
            help: "send the saves PostgreSQL lacks, apply its changes, and exit"),
        OptionSpec(
            name: "status", valueName: nil,
            help: "report the lag both ways, pending saves and the last error, and exit"),
        OptionSpec(
            name: "setup", valueName: nil,
            help: "create what the database lacks for the store's schema, and exit"),
        OptionSpec(
            name: "name", valueName: "NAME",
            help: "the replica's name, the author of its changes elsewhere (default: host:store)"),
    ]
    static let discussion = """
        URL is a postgresql:// URL (parts it leaves out come from PGHOST, PGUSER, … and the \
        password also from ~/.pgpass; TLS is not supported: connect over a Unix socket or a \
        local tunnel). The first sync creates the tables of the store's entities, as `logbook \
        export --format sql` makes them, and the sync tables, then exchanges what both sides \
        hold.
        Without --once it runs until SIGINT or SIGTERM, sending each save of the store as one \
        transaction and applying each transaction committed in PostgreSQL as a save of its \
        own, woken by NOTIFY; it retries through lost connections and a stopped server. On a \
        terminal, standard error shows the rates; otherwise standard output gets one JSON line \
        a second when something moved: {"time", "sent": {"saves", "changes", "perSecond"}, \
        "applied": {"transactions", "changes", "perSecond"}, "pending", "behind", \
        "connected", "error"}. On SIGINT or SIGTERM it finishes the transaction it is applying \
        and exits with 0.
        One process writes a store: while an app has it open, the app's container syncs it \
        (PostgreSQLReplica), and this command refuses. --status reads both sides without \
        writing, and works while another process syncs. The URL's password never appears in \
        the output.
        """

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        let path = arguments.positionals[0]
        let url = arguments.positionals[1]
        let modes = ["once", "status", "setup"].filter { arguments.has($0) }
        guard modes.count <= 1 else {
            throw CommandError.usage("--\(modes[0]) and --\(modes[1]) do not go together")
        }
        var options = PostgreSQLReplica.Options()
        options.name = arguments.value("name")
        if arguments.has("status") || arguments.has("setup") {
            let container = try HistoryAccess.open(path)
            defer { try? container.close() }
            let replica = try reporting {
                try PostgreSQLReplica(container: container, url: url, options: options)
            }
            if arguments.has("setup") {
                try reporting { try replica.setUp() }
                console.out.write("set up the database for the store's schema\n")
            } else {
                console.out.write(describe(try reporting { try replica.checkStatus() }))
            }
            return 0
        }
        let container = try openForSyncing(path)
        defer { try? container.close() }
        let replica = try reporting {
            try PostgreSQLReplica(container: container, url: url, options: options)
        }
        if arguments.has("once") {
            let status = try reporting { try replica.sync() }
            console.out.write(
                "sent \(Formatting.count(status.savesSent, "save")) "
                    + "(\(Formatting.count(status.changesSent, "change"))), applied "
                    + "\(Formatting.count(status.transactionsApplied, "transaction")) "
                    + "(\(Formatting.count(status.changesApplied, "change")))\n")
            return 0
        }
        StopSignal.install()
        // A first pass in the foreground: an error that retrying cannot fix (the database's
        // tables do not fit the store) ends the command; an unreachable server does not.
        do {
            try replica.sync()
        } catch LogbookError.postgreSQL(let error) {
            console.progress.clear()
            console.err.write("logbook: \(error); retrying in the background\n")
        } catch let error as LogbookError {
            throw CommandError.failed(error.description)
        }
        replica.start()
        let reporter = SyncReporter(console: console)
        while !StopSignal.isRequested {
            usleep(100_000)
            reporter.report(replica.status)
        }
        replica.stop()
        reporter.report(replica.status, final: true)
        return 0
    }

    /// Opens the store at `path` for writing, as a container with its own schema.
    /// - Throws: ``CommandError/failed(_:)`` if another process has it open (an app then syncs
    ///   it), or it does not open.
    static func openForSyncing(_ path: String) throws -> ModelContainer {
        try StoreAccess.requireStoreDirectory(path)
        var options = LogStoreOptions()
        options.createIfMissing = false
        do {
            return try ModelContainer(
                schema: nil, at: URL(fileURLWithPath: path), options: options)
        } catch LogbookError.store(.locked) {
            throw CommandError.failed(
                "the store at \(path) is locked: another process has it open for writing. While "
                    + "an app has the store open, its container does the syncing "
                    + "(PostgreSQLReplica); close the app, or sync from it")
        } catch let error as LogbookError {
            throw CommandError.failed(error.description)
        }
    }

    /// Runs `body`, turning the library's errors into one line and exit status 1.
    static func reporting<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as LogbookError {
            throw CommandError.failed(error.description)
        }
    }

    /// `--status`'s report.
    static func describe(_ status: ReplicaStatus) -> String {
        var text = ""
        if let origin = status.origin, let database = status.database {
            text += "replica \(origin) of database \(database.uuidString.lowercased())\n"
        } else {
            text += "not synced yet\n"
        }
        text += "up: \(Formatting.count(status.pendingSaves, "save")) pending"
        if let lag = status.upLag { text += ", the oldest \(SyncReporter.seconds(lag)) old" }
        text += "\ndown: \(Formatting.count(status.changesBehind, "change")) behind"
        if let lag = status.downLag {
            text += ", the oldest \(SyncReporter.seconds(lag)) old"
        }
        text += " (applied up to position \(status.appliedPosition))\n"
        text += "last error: \(status.lastError ?? "none")"
        if let at = status.lastErrorAt { text += " (at \(AttributeValue.date(at).text(as: .csv)))" }
        return text + "\n"
    }
}
