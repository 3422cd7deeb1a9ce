import Foundation
import LogStore
import Logbook

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The processes of the soak test (`logbook-soak-child`): a writer making mixed saves until it
/// is killed, readers following it, and a backup. Each reports on standard output, one line at
/// a time, what the parent checks against its model (``SoakState``):
///
/// - `start SEQ DIGEST` — a writer opened the store, which is at commit SEQ and holds DIGEST;
/// - `intent EFFECT…` — the writer is about to save these effects (``SoakState/Effect/word``);
/// - `ack SEQ` — that save returned: it is acknowledged, and the store is at commit SEQ;
/// - `view SEQ DIGEST` — a reader saw the store at commit SEQ, holding DIGEST;
/// - `backup SEQ INCREMENTAL COPIED INTACT DIGEST` — a backup made at commit SEQ, whether it
///   went on from the previous one, bytes copied, whether it verified, and what it holds;
/// - `error TEXT` — something failed (the parent fails the test).
package enum SoakWorkload {
    package static var types: [any PersistentModel.Type] { [SoakCompany.self, SoakEmployee.self] }
    /// At most this many employees (inserts turn into deletes above it): the store stays small.
    package static let maxEmployees = 600

    /// Small segments and automatic compaction at a low threshold, so the writer compacts often.
    package static var options: LogStoreOptions {
        var options = LogStoreOptions()
        options.segmentSize = 256 << 10
        options.autoCompactionDeadFraction = 0.4
        options.autoCompactionMinimumBytes = 512 << 10
        return options
    }

    static var readOnly: LogStoreOptions {
        var options = options
        options.readOnly = true
        options.createIfMissing = false
        return options
    }

    /// Writes `line` to standard output in one `write`.
    package static func say(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
            if n <= 0 { exit(10) }
            sent += n
        }
    }

    /// What `container` shows, read with a new context.
    package static func state(of container: ModelContainer) throws -> SoakState {
        let context = ModelContext(container)
        var state = SoakState()
        for company in try context.fetch(FetchDescriptor<SoakCompany>()) {
            state.companies[company.code] = company.name
        }
        for e in try context.fetch(FetchDescriptor<SoakEmployee>()) {
            state.employees[e.code] = SoakState.Person(
                name: e.name, salary: e.salary, company: e.company?.code)
        }
        return state
    }

    static func open(_ path: String, options: LogStoreOptions) -> ModelContainer {
        let deadline = Date().addingTimeInterval(60)
        while true {
            do {
                return try ModelContainer(
                    for: types, at: URL(fileURLWithPath: path), options: options)
            } catch  where Date() < deadline {
                usleep(20_000)
            } catch {
                say("error open \(path): \(error)")
                exit(4)
            }
        }
    }

    /// The writer: reports `start`, then saves until killed (or, with `once`, exits at once).
    package static func runWriter(path: String, seed: UInt64, once: Bool) -> Never {
        let container = open(path, options: options)
        var state: SoakState
        let start: UInt64
        do {
            state = try Self.state(of: container)
            start = try container.currentHistoryToken.sequence
        } catch {
            say("error reading the store: \(error)")
            exit(4)
        }
        say("start \(start) \(state.digest) \(state.summary)")
        if once { exit(0) }
        var writer = SoakWriter(
            container: container, state: state,
            rng: SeededGenerator(seed: seed ^ (start &* 0x9E37_79B9_7F4A_7C15)))
        while true {
            usleep(UInt32.random(in: 2_000...8_000, using: &writer.rng))
            do {
                try writer.step()
                state = writer.state
            } catch {
                say("error save: \(error)")
                exit(8)
            }
        }
    }

    /// A reader: a read-only container that refreshes itself (`follow`, with
    /// ``ModelContainer/followChanges(every:onError:)``) or is refreshed here, reporting each
    /// new commit it sees with what it holds. Runs until killed.
    package static func runReader(path: String, follow: Bool) -> Never {
        let container = open(path, options: readOnly)
        let following =
            follow
            ? container.followChanges(every: 0.05) { error in say("error follow: \(error)") }
            : nil
        var last: UInt64 = .max
        while true {
            withExtendedLifetime(following) {}
            do {
                if !follow { try container.refresh() }
                // Two reads of the commit around the read of the contents: equal, and no refresh
                // ran between them, so the contents are those of that commit.
                let before = try container.currentHistoryToken.sequence
                let seen = try state(of: container)
                let after = try container.currentHistoryToken.sequence
                if before == after && before != last {
                    say("view \(before) \(seen.digest)")
                    last = before
                }
            } catch {
                say("error read: \(error)")
            }
            usleep(follow ? 30_000 : 60_000)
        }
    }

    /// A backup of the store into `destination` through a read-only container, verified, and
    /// read back; reports one `backup` line. Returns the exit status.
    package static func runBackup(path: String, destination: String) -> Int32 {
        let container = open(path, options: readOnly)
        do {
            let made = try container.backup(to: URL(fileURLWithPath: destination))
            try container.close()
            let check = try ModelContainer.verifyBackup(at: URL(fileURLWithPath: destination))
            let restored = open(destination, options: readOnly)
            let held = try state(of: restored)
            let sequence = try restored.currentHistoryToken.sequence
            try restored.close()
            guard let token = made.token, check.token == token, sequence == token.sequence
            else {
                say(
                    "error backup token \(String(describing: made.token)), verified \(String(describing: check.token)), opens at \(sequence)"
                )
                return 1
            }
            if !check.isIntact {
                say("error backup damaged: \(check.files.problems) \(check.store)")
            }
            say(
                "backup \(token.sequence) \(made.report.incremental) \(made.report.bytesCopied) "
                    + "\(check.isIntact) \(held.digest)")
            return 0
        } catch {
            say("error backup: \(error)")
            return 1
        }
    }
}
