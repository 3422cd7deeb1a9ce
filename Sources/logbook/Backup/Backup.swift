import Foundation
import LogStore
import Logbook

/// `logbook backup SRC DST`: an online backup of a store; `logbook backup --verify DST` checks
/// one against its own token.
enum Backup: Subcommand {
    static let name = "backup"
    static let summary = "copy a store, while it is written, into a backup that opens as a store"
    static let positionals = ["PATH", "[DST]"]
    static let options = [
        OptionSpec(
            name: "verify", valueName: nil,
            help: "check the backup at PATH against its own token instead of making one")
    ]
    static let discussion = """
        `logbook backup SRC DST` copies the store at SRC into the directory DST while another \
        process may be writing SRC: the copy holds exactly the saves up to one point, printed \
        as its history token (and commit sequence number), and none after. DST is a store: \
        restoring is opening it. A later backup into the same DST copies only the commits \
        written since (sealed segments never change, so they are linked, not copied), unless \
        a compaction of SRC removed them (then it copies SRC whole again).

        The new backup is built in DST.incoming and swapped in atomically, so if the backup is \
        killed or the disk fills at any moment, DST stays the previous backup, whole; a failed \
        backup removes what it wrote. Never copy a live store with cp: a copy taken while it \
        is written may hold half a commit, or segments of two different moments.

        `logbook backup --verify DST` checks every file of the backup against its manifest \
        (size and CRC32C), that its log ends at the token's commit and belongs to the token's \
        store, and the whole store as `logbook verify` does.

        Exit status: 0 success (a backup made, or one that verifies clean), 1 failure (DST \
        holds something that is not a backup, another backup into DST is running, the disk \
        is full) or damage found, 2 could not run.
        """

    static func run(_ arguments: ParsedArguments, console: Console) throws -> Int32 {
        if arguments.has("verify") {
            guard arguments.positionals.count == 1 else {
                throw CommandError.usage("`logbook backup --verify` takes one path: the backup's")
            }
            return try verify(arguments.positionals[0], console: console)
        }
        guard arguments.positionals.count == 2 else {
            throw CommandError.usage(
                "`logbook backup` needs DST (usage: logbook backup SRC DST, or "
                    + "logbook backup --verify DST)")
        }
        let (source, destination) = (arguments.positionals[0], arguments.positionals[1])
        let store = try StoreAccess.openForReading(source).get()
        defer { try? store.close() }
        console.progress.show("backup: copying \(source)…")
        let made: ContainerBackup
        do {
            made = try ModelContainer.backup(
                store, identifier: try HistoryToken.current(of: store)?.storeIdentifier,
                to: destination)
        } catch LogbookError.store(.locked) {
            throw CommandError.failed(
                "another backup into \(destination) is running (or the backup is open for "
                    + "writing); \(destination) is left as it was")
        }
        console.progress.clear()
        let r = made.report
        var line = "backup: OK: " + (r.incremental ? "incremental, " : "whole, ")
        line += Formatting.byteCount(r.bytesCopied) + " copied, "
        line += Formatting.byteCount(r.bytesReused) + " reused, "
        line += Formatting.count(r.files, "file") + " in "
        line += Formatting.fixed(r.duration, digits: 2) + " s; commit \(r.lastSequence)"
        if let token = made.token { line += ", token \(token)" }
        console.out.write(line + "\n")
        return 0
    }

    private static func verify(_ path: String, console: Console) throws -> Int32 {
        let check = try ModelContainer.verifyBackup(at: URL(fileURLWithPath: path))
        let out = console.out
        for problem in check.files.problems { out.write("error: \(problem)\n") }
        for problem in check.store.log.problems {
            let at = problem.offset.map { " at offset \($0)" } ?? ""
            out.write("error: \(problem.path)\(at): \(problem.reason)\n")
        }
        for finding in check.store.damagedRecords + check.store.danglingReferences {
            out.write("error: \(finding.description)\n")
        }
        var line = check.isIntact ? "backup: OK: " : "backup: DAMAGED: "
        line += Formatting.count(check.files.files, "file") + ", "
        line += Formatting.byteCount(check.files.bytes) + " checked, commit "
        line += "\(check.files.lastSequence)"
        if let token = check.token { line += ", token \(token)" }
        out.write(line + "\n")
        return check.isIntact ? 0 : 1
    }
}
