import Foundation
import LogStore
import Logbook

/// What `logbook history` and `logbook changes` share: the read-only open of a store as a
/// container (history is the object layer's), the `--since` token, and the reader.
enum HistoryAccess {
    /// Opens the Logbook store at `path` read-only (no lock: another process may be writing it).
    /// - Throws: ``CommandError/cannotRun(_:)`` if `path` is not a store; ``CommandError/failed(_:)``
    ///   if it does not open (damage, no schema).
    static func open(_ path: String) throws -> ModelContainer {
        try StoreAccess.requireStoreDirectory(path)
        var options = LogStoreOptions()
        options.readOnly = true
        options.createIfMissing = false
        options.autoCompactionDeadFraction = nil
        do {
            return try ModelContainer(
                schema: nil, at: URL(fileURLWithPath: path), options: options)
        } catch let error as LogbookError {
            throw CommandError.failed(error.description)
        }
    }

    /// The token `--since` gives (`nil` when absent: the oldest history the store has).
    /// - Throws: ``CommandError/failed(_:)`` if it is not a token (exit status 1, as for a token
    ///   the store refuses).
    static func since(_ arguments: ParsedArguments) throws -> HistoryToken? {
        guard let text = arguments.value("since") else { return nil }
        guard let token = HistoryToken(text) else {
            throw CommandError.failed(
                "--since: \"\(text)\" is not a history token; a token has the form "
                    + "<store identifier>:<sequence>, as `logbook history` prints them")
        }
        return token
    }

    /// Runs `body`, turning the object layer's errors (a token of another store, history that
    /// retention dropped) into one line and exit status 1.
    static func reporting<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as LogbookError {
            throw CommandError.failed(error.description)
        }
    }

    /// The `--since` option, as both commands describe it.
    static let sinceOption = OptionSpec(
        name: "since", valueName: "TOKEN",
        help: "start after this token (default: the oldest history the store still has)")
}
