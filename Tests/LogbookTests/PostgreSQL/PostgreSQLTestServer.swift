import Foundation
import Synchronization
import Testing

@testable import Logbook

/// The scratch server `.ci/postgres` starts, from the variables it exports: its socket
/// directory, its TCP port on 127.0.0.1, and the password of its roles `logbook_password`,
/// `logbook_md5` and `logbook_scram` (`logbook_trust` needs none, nor does `postgres` on the
/// socket).
enum PostgreSQLTestServer {
    static let environment = ProcessInfo.processInfo.environment
    static let socketDirectory = environment["LOGBOOK_TEST_PG_SOCKET_DIR"]
    static let host = environment["LOGBOOK_TEST_PG_HOST"] ?? "127.0.0.1"
    static let port = environment["LOGBOOK_TEST_PG_PORT"].flatMap { Int($0) } ?? 5432
    static let password = environment["LOGBOOK_TEST_PG_PASSWORD"] ?? ""

    /// Whether a server was given (the suites that need one are skipped otherwise).
    static let isAvailable = socketDirectory != nil && environment["LOGBOOK_TEST_PG_PORT"] != nil

    static let skipReason: Comment = "needs the server of .ci/postgres (LOGBOOK_TEST_PG_SOCKET_DIR)"

    /// Settings for `user`, on the socket or over TCP; no password file, so the developer's own
    /// `~/.pgpass` plays no part.
    static func configuration(
        user: String = "postgres", password: String? = nil, tcp: Bool = false
    ) -> PostgreSQLConfiguration {
        var configuration = PostgreSQLConfiguration(
            host: tcp ? host : socketDirectory ?? "/nonexistent", port: port, user: user,
            database: "postgres", password: password)
        configuration.passwordFile = nil
        configuration.connectTimeout = .seconds(20)
        configuration.responseTimeout = .seconds(60)
        return configuration
    }

    /// A superuser connection over the socket.
    static func connect() throws -> PostgreSQLConnection {
        try PostgreSQLConnection.connect(configuration())
    }

    /// Waits until the server process `pid` runs a statement (so a kill or cancel lands
    /// in it), checking from a connection of its own; at most 20 s.
    static func waitUntilActive(_ pid: Int32) throws {
        let admin = try connect()
        defer { admin.close() }
        for _ in 0..<2000 {
            let state = try admin.query(
                "SELECT state FROM pg_stat_activity WHERE pid = $1", [.int(Int64(pid))])
            if try state.rows.first?.decode(0, as: String?.self) == "active" { return }
            Thread.sleep(forTimeInterval: 0.01)
        }
    }
}

/// Runs `body` on a thread of its own; ``wait()`` returns what it threw, if anything.
final class BackgroundThread: Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let failure = Mutex<String?>(nil)

    init(_ body: @escaping @Sendable () throws -> Void) {
        Thread.detachNewThread { [self] in
            do { try body() } catch { failure.withLock { $0 = "\(error)" } }
            done.signal()
        }
    }

    /// Waits for the thread (at most `seconds`); its error, or a timeout, as text.
    @discardableResult
    func wait(seconds: Double = 60) -> String? {
        guard done.wait(timeout: .now() + seconds) == .success else { return "timed out" }
        return failure.withLock { $0 }
    }
}

extension LogbookError {
    /// The PostgreSQL error inside, if this is one.
    var postgreSQL: PostgreSQLError? {
        if case .postgreSQL(let error) = self { return error }
        return nil
    }
}

/// The PostgreSQL error `body` throws (`nil` if it returns, or throws something else).
func postgreSQLError(_ body: () throws -> Void) -> PostgreSQLError? {
    do {
        try body()
        return nil
    } catch let error as LogbookError {
        return error.postgreSQL
    } catch {
        return nil
    }
}
