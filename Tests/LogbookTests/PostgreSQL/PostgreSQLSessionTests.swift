import Foundation
import Testing

@testable import Logbook

/// What happens around statements: notifications while idle, a cancelled statement, a
/// connection an administrator kills mid-query, and the size limit on what the server sends.
@Suite(.enabled(if: PostgreSQLTestServer.isAvailable, PostgreSQLTestServer.skipReason), .serialized)
struct PostgreSQLSessionTests {
    typealias Server = PostgreSQLTestServer

    /// A NOTIFY from another connection reaches a listener waiting while idle, with its
    /// channel, payload and sender; a wait with nothing to receive ends at its timeout.
    @Test func notifyReachesAnIdleListener() throws {
        let listener = try Server.connect()
        defer { listener.close() }
        try listener.listen("logbook changes")
        let start = ContinuousClock.now
        #expect(try listener.nextNotification(timeout: .milliseconds(200)) == nil)
        #expect(ContinuousClock.now - start >= .milliseconds(200))
        let sender = BackgroundThread {
            let connection = try Server.connect()
            defer { connection.close() }
            Thread.sleep(forTimeInterval: 0.3)
            try connection.notify("logbook changes", payload: "saved 42 ✓")
        }
        let notification = try #require(try listener.nextNotification(timeout: .seconds(20)))
        #expect(sender.wait() == nil)
        #expect(notification.channel == "logbook changes")
        #expect(notification.payload == "saved 42 ✓")
        #expect(notification.processID != listener.processID)
        // Notifications that arrive during a request wait for the next call; in order.
        let other = try Server.connect()
        defer { other.close() }
        try other.transaction {
            for i in 1...3 { try other.notify("logbook changes", payload: "\(i)") }
        }
        #expect(try listener.query("SELECT 1").rows.count == 1)
        #expect(listener.pendingNotificationCount == 3)
        for i in 1...3 {
            #expect(try listener.nextNotification(timeout: .seconds(5))?.payload == "\(i)")
        }
        try listener.unlisten("logbook changes")
        try other.notify("logbook changes", payload: "unheard")
        #expect(try listener.nextNotification(timeout: .milliseconds(300)) == nil)
    }

    /// A listener that does not keep up keeps the newest notifications up to its limit and
    /// counts the ones it dropped.
    @Test func pendingNotificationsAreBounded() throws {
        var configuration = Server.configuration()
        configuration.maximumPendingNotifications = 3
        let listener = try PostgreSQLConnection.connect(configuration)
        defer { listener.close() }
        try listener.listen("bounded")
        let sender = try Server.connect()
        defer { sender.close() }
        try sender.transaction {
            for i in 1...5 { try sender.notify("bounded", payload: "\(i)") }
        }
        try listener.simpleQuery("SELECT 1")
        #expect(listener.droppedNotificationCount == 2)
        var payloads: [String] = []
        while let n = try listener.nextNotification(timeout: .milliseconds(100)) {
            payloads.append(n.payload)
        }
        #expect(payloads == ["3", "4", "5"])
    }

    /// Cancelling from another thread stops the statement with 57014; the connection goes on.
    @Test func cancelStopsARunningStatement() throws {
        let c = try Server.connect()
        defer { c.close() }
        let handle = c.cancelHandle
        let pid = c.processID
        let canceller = BackgroundThread {
            try PostgreSQLTestServer.waitUntilActive(pid)
            try handle.cancel()
        }
        let start = ContinuousClock.now
        let error = postgreSQLError { try c.simpleQuery("SELECT pg_sleep(30)") }
        #expect(canceller.wait() == nil)
        #expect(error?.sqlState == "57014", "\(String(describing: error))")
        #expect(ContinuousClock.now - start < .seconds(25))
        #expect(!c.isClosed)
        #expect(try c.query("SELECT 3").rows.first?.decode(0, as: Int.self) == 3)
    }

    /// `pg_terminate_backend` from a second connection in the middle of a statement: the
    /// statement fails with the server's fatal 57P01 (not a hang, not a crash), the connection
    /// is closed, and every later call says so.
    @Test(arguments: [false, true])
    func connectionKilledMidQueryIsATypedError(tcp: Bool) throws {
        let c = try PostgreSQLConnection.connect(
            Server.configuration(user: "logbook_scram", password: Server.password, tcp: tcp))
        let pid = c.processID
        let killer = BackgroundThread {
            try PostgreSQLTestServer.waitUntilActive(pid)
            let admin = try PostgreSQLTestServer.connect()
            defer { admin.close() }
            try admin.query("SELECT pg_terminate_backend($1)", [.int(Int64(pid))])
        }
        let start = ContinuousClock.now
        let error = postgreSQLError { try c.simpleQuery("SELECT pg_sleep(30)") }
        #expect(killer.wait() == nil)
        guard case .server(let fatal) = error else {
            Issue.record("a killed connection gave \(String(describing: error))")
            return
        }
        #expect(fatal.sqlState == "57P01")
        #expect(fatal.isFatal)
        #expect(ContinuousClock.now - start < .seconds(25))
        #expect(c.isClosed)
        guard case .connectionClosed = postgreSQLError({ try c.query("SELECT 1") }) else {
            Issue.record("a call on the killed connection did not say it is closed")
            return
        }
        guard
            case .connectionClosed = postgreSQLError({
                _ = try c.nextNotification(timeout: .seconds(1))
            })
        else {
            Issue.record("a wait on the killed connection did not say it is closed")
            return
        }
    }

    /// Killed while it streams a large result, or while it waits for notifications: a typed
    /// error either way.
    @Test func connectionKilledWhileStreamingOrListening() throws {
        let streaming = try Server.connect()
        let pid = streaming.processID
        var rows = 0
        // The series in the select list: the server sends rows as it makes them (in FROM it
        // would first collect all fifty million, seconds of its CPU, before the first row).
        let error = postgreSQLError {
            try streaming.query("SELECT generate_series(1, 50000000) AS g") { _ in
                rows += 1
                if rows == 1000 {
                    let admin = try PostgreSQLTestServer.connect()
                    defer { admin.close() }
                    try admin.query("SELECT pg_terminate_backend($1)", [.int(Int64(pid))])
                }
            }
        }
        switch error {
        case .server(let fatal) where fatal.sqlState == "57P01": break
        case .connectionClosed: break
        default: Issue.record("killed mid-result: \(String(describing: error))")
        }
        #expect(streaming.isClosed)

        let listener = try Server.connect()
        try listener.listen("never")
        let listenerPID = listener.processID
        let killer = BackgroundThread {
            Thread.sleep(forTimeInterval: 0.3)
            let admin = try PostgreSQLTestServer.connect()
            defer { admin.close() }
            try admin.query("SELECT pg_terminate_backend($1)", [.int(Int64(listenerPID))])
        }
        let waited = postgreSQLError { _ = try listener.nextNotification(timeout: .seconds(30)) }
        #expect(killer.wait() == nil)
        #expect(waited?.sqlState == "57P01", "\(String(describing: waited))")
        #expect(listener.isClosed)
    }

    /// A message over the configured limit closes the connection with a protocol error
    /// instead of being read.
    @Test func messageOverTheLimitIsRefused() throws {
        var configuration = Server.configuration()
        configuration.maximumMessageBytes = 4096
        let c = try PostgreSQLConnection.connect(configuration)
        #expect(try c.query("SELECT repeat('x', 3000)").rows.count == 1)
        guard
            case .protocolViolation(let reason) = postgreSQLError({
                try c.query("SELECT repeat('x', 5000)")
            })
        else {
            Issue.record("a message over the limit was read")
            return
        }
        #expect(reason.contains("4096"))
        #expect(c.isClosed)
    }

    /// A collected result is bounded too: past the limit the connection is closed rather than
    /// read to its end; the same result streams row by row.
    @Test func collectedResultOverTheLimitIsRefused() throws {
        var configuration = Server.configuration()
        configuration.maximumResultBytes = 100_000
        let sql = "SELECT g FROM generate_series(1, 100000) g"
        for collect in [
            { (c: PostgreSQLConnection) in _ = try c.query(sql) },
            { (c: PostgreSQLConnection) in _ = try c.simpleQuery(sql) },
            { (c: PostgreSQLConnection) in _ = try c.query(c.prepare(sql)) },
        ] {
            let c = try PostgreSQLConnection.connect(configuration)
            #expect(postgreSQLError({ try collect(c) }) == .resultTooLarge(limit: 100_000))
            #expect(c.isClosed)
        }
        let c = try PostgreSQLConnection.connect(configuration)
        defer { c.close() }
        var rows = 0
        try c.query(sql) { _ in rows += 1 }
        #expect(rows == 100_000)
    }

    /// A response timeout: the server does not answer in time, and the connection is closed
    /// rather than left in an unknown state.
    @Test func responseTimeoutClosesTheConnection() throws {
        var configuration = Server.configuration()
        configuration.responseTimeout = .milliseconds(300)
        let c = try PostgreSQLConnection.connect(configuration)
        let error = postgreSQLError { try c.simpleQuery("SELECT pg_sleep(5)") }
        guard case .timedOut(_, let seconds) = error else {
            Issue.record("no timeout: \(String(describing: error))")
            return
        }
        #expect(seconds == 0.3)
        #expect(c.isClosed)
    }
}
