import Foundation
import TestSupport
import Testing

@testable import Logbook

/// Logging in to the real server by each method `.ci/postgres` sets up, on its Unix socket and
/// over TCP, and the failures: a wrong or missing password, a method the configuration refuses.
@Suite(.enabled(if: PostgreSQLTestServer.isAvailable, PostgreSQLTestServer.skipReason), .serialized)
struct PostgreSQLAuthenticationTests {
    typealias Server = PostgreSQLTestServer

    /// Connects as `user` and checks who the server says is logged in.
    static func logIn(_ user: String, password: String?, tcp: Bool) throws {
        let connection = try PostgreSQLConnection.connect(
            Server.configuration(user: user, password: password, tcp: tcp))
        defer { connection.close() }
        let row = try #require(try connection.query("SELECT current_user").rows.first)
        #expect(try row.decode(0, as: String.self) == user)
        #expect(connection.processID != 0)
        #expect(connection.serverParameters["client_encoding"] == "UTF8")
    }

    @Test(arguments: [false, true])
    func trustLogsIn(tcp: Bool) throws {
        try Self.logIn("logbook_trust", password: nil, tcp: tcp)
    }

    @Test(arguments: [false, true])
    func cleartextPasswordLogsIn(tcp: Bool) throws {
        try Self.logIn("logbook_password", password: Server.password, tcp: tcp)
    }

    @Test(arguments: [false, true])
    func md5PasswordLogsIn(tcp: Bool) throws {
        try Self.logIn("logbook_md5", password: Server.password, tcp: tcp)
    }

    @Test(arguments: [false, true])
    func scramSHA256LogsIn(tcp: Bool) throws {
        try Self.logIn("logbook_scram", password: Server.password, tcp: tcp)
    }

    /// A wrong password is the server's 28P01, and neither password is in the message.
    @Test(arguments: ["logbook_password", "logbook_md5", "logbook_scram"])
    func wrongPasswordIsRefusedWith28P01(user: String) throws {
        let wrong = "Zq7-wrong-hunter2"
        let error = postgreSQLError {
            _ = try PostgreSQLConnection.connect(Server.configuration(user: user, password: wrong))
        }
        #expect(error?.sqlState == "28P01", "\(String(describing: error))")
        let text = LogbookError.postgreSQL(try #require(error)).description
        #expect(!text.contains(wrong) && !text.contains(Server.password), "\(text)")
    }

    /// No password at all: the client says where one could come from, before sending anything.
    @Test func missingPasswordSaysWhereToPutIt() throws {
        let error = postgreSQLError {
            _ = try PostgreSQLConnection.connect(Server.configuration(user: "logbook_scram"))
        }
        guard case .authentication(let reason) = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(reason.contains("PGPASSWORD") && reason.contains(".pgpass"))
    }

    /// The password comes from a private password file when none is given; a file others can
    /// read is ignored, and the error says why.
    @Test func passwordFileSuppliesThePassword() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.child("pgpass")
        let line = "*:\(Server.port):postgres:logbook_scram:\(Server.password)\n"
        #expect(FileManager.default.createFile(atPath: path, contents: Data(line.utf8)))
        var configuration = Server.configuration(user: "logbook_scram", tcp: true)
        configuration.passwordFile = path
        #expect(chmod(path, 0o600) == 0)
        let connection = try PostgreSQLConnection.connect(configuration)
        connection.close()
        #expect(chmod(path, 0o644) == 0)
        let error = postgreSQLError { _ = try PostgreSQLConnection.connect(configuration) }
        guard case .authentication(let reason) = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(reason.contains("chmod 600") && !reason.contains(Server.password), "\(reason)")
    }

    /// `require_auth`: a server that asks for a method the client does not allow (or lets it in
    /// without one) is refused before the password leaves the client.
    @Test func requireAuthRefusesOtherMethods() throws {
        var cleartext = Server.configuration(user: "logbook_password", password: Server.password)
        cleartext.allowedAuthentication = [.scramSHA256]
        guard
            case .authentication(let reason) = postgreSQLError({
                _ = try PostgreSQLConnection.connect(cleartext)
            })
        else {
            Issue.record("a clear-text request was not refused")
            return
        }
        #expect(reason.contains("password") && reason.contains("require_auth"))
        var trust = Server.configuration(user: "logbook_trust")
        trust.allowedAuthentication = [.scramSHA256, .md5]
        #expect(postgreSQLError({ _ = try PostgreSQLConnection.connect(trust) }) != nil)
        var scram = Server.configuration(user: "logbook_scram", password: Server.password)
        scram.allowedAuthentication = [.scramSHA256]
        try PostgreSQLConnection.connect(scram).close()
    }

    /// SCRAM with a non-ASCII password: SASLprep makes the decomposed and composed spellings,
    /// and one with a soft hyphen in it, the same password, as the server does when it stores it.
    @Test func scramPasswordIsNormalizedBySASLprep() throws {
        let admin = try Server.connect()
        defer { admin.close() }
        let stored = "p\u{00E4}ss\u{00A0}w\u{00F6}rd"
        try admin.simpleQuery("DROP ROLE IF EXISTS logbook_unicode")
        try admin.simpleQuery(
            "SET password_encryption = 'scram-sha-256'; "
                + "CREATE ROLE logbook_unicode LOGIN IN ROLE logbook_scram_users PASSWORD '\(stored)'"
        )
        defer { _ = try? admin.simpleQuery("DROP ROLE IF EXISTS logbook_unicode") }
        for spelling in [
            stored, "pa\u{0308}ss w\u{00AD}o\u{0308}rd", "p\u{00E4}ss\u{2003}w\u{00F6}rd",
        ] {
            let connection = try PostgreSQLConnection.connect(
                Server.configuration(user: "logbook_unicode", password: spelling))
            connection.close()
        }
        #expect(
            postgreSQLError({
                _ = try PostgreSQLConnection.connect(
                    Server.configuration(user: "logbook_unicode", password: "pass word"))
            })?.sqlState == "28P01")
    }

    /// A missing database, an unreachable socket, a closed port: typed errors at once.
    @Test func unreachableServerAndMissingDatabaseAreTypedErrors() throws {
        var missing = Server.configuration()
        missing.database = "no_such_database"
        #expect(
            postgreSQLError({ _ = try PostgreSQLConnection.connect(missing) })?.sqlState == "3D000")
        var socket = Server.configuration()
        socket.host = "/nonexistent-directory"
        guard
            case .connectionFailed(let endpoint, _) = postgreSQLError({
                _ = try PostgreSQLConnection.connect(socket)
            })
        else {
            Issue.record("no connectionFailed for a missing socket")
            return
        }
        #expect(endpoint == "/nonexistent-directory/.s.PGSQL.\(Server.port)")
        var closedPort = Server.configuration(user: "logbook_trust", tcp: true)
        closedPort.port = 1
        guard
            case .connectionFailed = postgreSQLError({
                _ = try PostgreSQLConnection.connect(closedPort)
            })
        else {
            Issue.record("no connectionFailed for a closed port")
            return
        }
        var tls = Server.configuration()
        tls.sslMode = .require
        #expect(
            postgreSQLError({ _ = try PostgreSQLConnection.connect(tls) })
                == .tlsUnsupported(sslmode: "require"))
    }
}
