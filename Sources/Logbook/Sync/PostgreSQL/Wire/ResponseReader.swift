/// Reads the answer to one request up to ReadyForQuery, whatever happens on the way: a
/// server error is kept and the reading goes on (the server skips to the Sync), and so does
/// an error thrown by the caller's handler; the first is thrown at the end, the handler's
/// before the server's. So the connection is always ready for the next request afterwards,
/// unless the connection itself failed.
///
/// When the handler throws, the statement is cancelled (a CancelRequest), so the rest of a
/// large result is not produced only to be dropped. The cancel is sent while the request is
/// still being read; the server ignores one that reaches a session between statements.
final class ResponseReader {
    enum Event {
        /// A row of the current result.
        case row(PostgreSQLRow)
        /// A statement finished, with the columns of its rows (`nil` if it returns none) and
        /// its command tag.
        case complete(PostgreSQLRow.Columns?, String)
    }

    private let connection: PostgreSQLConnection
    /// Whether the request used the extended protocol (whose Sync a COPY swallows).
    private let isExtended: Bool
    /// The bytes the caller may collect, or `nil` if it takes one row at a time.
    private let resultLimit: Int?
    private var collectedBytes = 0
    /// The columns of the rows coming: described by the server, or known in advance.
    private(set) var columns: PostgreSQLRow.Columns?
    /// The columns known in advance: those of every run of a prepared statement.
    private let knownColumns: PostgreSQLRow.Columns?
    /// The parameter types of a described statement.
    private(set) var parameterTypes: [UInt32] = []

    /// A reader for `connection`'s answer; `collecting` if the caller keeps every row (which
    /// ``PostgreSQLConfiguration/maximumResultBytes`` then bounds).
    init(
        _ connection: PostgreSQLConnection, extended: Bool, collecting: Bool = false,
        columns: PostgreSQLRow.Columns? = nil
    ) {
        self.connection = connection
        isExtended = extended
        resultLimit = collecting ? connection.configuration.maximumResultBytes : nil
        self.columns = columns
        knownColumns = columns
    }

    /// Reads to ReadyForQuery, handing rows and completions to `handle`; `first` is a message
    /// of the answer the caller already received.
    func read(first: BackendMessage? = nil, _ handle: (Event) throws -> Void) throws {
        var serverError: PostgreSQLServerError?
        var handlerError: (any Error)?
        var copyRefused = false
        var first = first
        loop: while true {
            let message = try first ?? connection.receive()
            first = nil
            switch message.type {
            case UInt8(ascii: "1"), UInt8(ascii: "2"), UInt8(ascii: "3"):
                continue  // ParseComplete, BindComplete, CloseComplete
            case UInt8(ascii: "t"):
                var reader = message
                let count = try reader.count(itemBytes: 4)
                parameterTypes = try (0..<count).map { _ in UInt32(bitPattern: try reader.int32()) }
            case UInt8(ascii: "T"):
                columns = PostgreSQLRow.Columns(try message.columns())
            case UInt8(ascii: "n"):
                columns = nil  // NoData
            case UInt8(ascii: "D"):
                guard let columns else {
                    throw connection.unexpected(message, "a result without columns")
                }
                let row = try message.row(columns)
                guard handlerError == nil, serverError == nil else { continue }
                if let resultLimit {
                    collectedBytes += row.bytes.count + 64
                    // Closes the connection: reading the rest to drop it could take forever.
                    guard collectedBytes <= resultLimit else {
                        throw LogbookError.postgreSQL(.resultTooLarge(limit: resultLimit))
                    }
                }
                do {
                    try handle(.row(row))
                } catch {
                    handlerError = error
                    try? connection.cancelHandle.cancel()
                }
            case UInt8(ascii: "C"), UInt8(ascii: "I"):
                var reader = message
                let tag = message.type == UInt8(ascii: "C") ? try reader.string() : ""
                guard handlerError == nil, serverError == nil else { continue }
                do { try handle(.complete(columns, tag)) } catch { handlerError = error }
                columns = knownColumns
            case UInt8(ascii: "s"):
                continue  // PortalSuspended: not asked for (every Execute takes all rows)
            case UInt8(ascii: "E"):
                if serverError == nil { serverError = try message.serverError() }
            case UInt8(ascii: "G"):
                // COPY FROM STDIN outside copyIn: refuse it; the server answers with an error.
                // In copy-in mode it ignored the request's Sync, so the extended protocol
                // needs another to end the request.
                copyRefused = true
                try connection.send {
                    try $0.copyFail("COPY FROM STDIN is only taken through copyIn")
                    if isExtended { $0.sync() }
                }
            case UInt8(ascii: "H"), UInt8(ascii: "d"), UInt8(ascii: "c"):
                copyRefused = true  // COPY TO STDOUT outside copyOut: its data is dropped.
            case UInt8(ascii: "Z"):
                try connection.readyForQuery(message)
                break loop
            default:
                throw connection.unexpected(message, "a query")
            }
        }
        if let handlerError { throw PostgreSQLConnection.CallerFailure(error: handlerError) }
        if copyRefused {
            throw LogbookError.postgreSQL(
                .invalidRequest(reason: "COPY … STDIN/STDOUT goes through copyIn or copyOut"))
        }
        if let serverError { throw LogbookError.postgreSQL(.server(serverError)) }
    }
}
