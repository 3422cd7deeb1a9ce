import Foundation
import Synchronization
import TestSupport
import Testing

@testable import Logbook

/// What a broken or hostile server sends: each gives a typed error, and the client neither
/// crashes, nor hangs, nor allocates what a length claims before the bytes arrive.
@Suite struct PostgreSQLHostileServerTests {
    typealias Client = FakeClient

    /// The error connecting to a fake server that runs `script`.
    static func connectError(
        configure: (inout PostgreSQLConfiguration) -> Void = { _ in },
        script: @escaping @Sendable (Client) throws -> Void
    ) throws -> PostgreSQLError? {
        let server = try FakePostgreSQLServer(script)
        defer { server.finish() }
        var configuration = server.configuration
        configure(&configuration)
        return postgreSQLError { _ = try PostgreSQLConnection.connect(configuration) }
    }

    /// The error of a query to a fake server that logs the client in, reads the query, then
    /// runs `answer`.
    static func queryError(_ answer: @escaping @Sendable (Client) throws -> Void) throws
        -> PostgreSQLError?
    {
        let server = try FakePostgreSQLServer { client in
            client.acceptLogin()
            _ = try client.readMessage()
            try answer(client)
        }
        defer { server.finish() }
        let connection = try PostgreSQLConnection.connect(server.configuration)
        let error = postgreSQLError { try connection.simpleQuery("SELECT 1") }
        #expect(
            connection.isClosed, "the connection stayed open after \(String(describing: error))")
        return error
    }

    static func isViolation(_ error: PostgreSQLError?) -> Bool {
        if case .protocolViolation = error { return true }
        return false
    }

    @Test func lengthOverTheLimitIsRefusedBeforeReading() throws {
        let start = ContinuousClock.now
        let error = try Self.connectError { client in
            client.send([UInt8(ascii: "R")] + Client.int32(Int32.max))
        }
        guard case .protocolViolation(let reason) = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(reason.contains("2147483643 bytes") && reason.contains("maximumMessageBytes"))
        #expect(ContinuousClock.now - start < .seconds(5))
    }

    @Test func lengthShorterThanItselfIsRefused() throws {
        #expect(
            Self.isViolation(try Self.connectError { $0.send([UInt8(ascii: "R"), 0, 0, 0, 2]) }))
    }

    @Test func messageCutShortIsAClosedConnection() throws {
        let error = try Self.connectError { client in
            client.send([UInt8(ascii: "R")] + Client.int32(100) + [0, 0, 0])
        }
        guard case .connectionClosed(let reason) = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(reason.contains("middle of a message"))
    }

    /// Counts and lengths inside a message that do not fit it.
    @Test func countsAndLengthsThatDoNotFitAreRefused() throws {
        // A RowDescription that claims 32,767 columns in 2 bytes.
        #expect(Self.isViolation(try Self.queryError { $0.send("T", [0x7f, 0xff]) }))
        // A DataRow before any RowDescription, and one whose value runs past its end.
        #expect(Self.isViolation(try Self.queryError { $0.send("D", [0, 1, 0, 0, 0, 1, 65]) }))
        #expect(
            Self.isViolation(
                try Self.queryError { client in
                    client.send(
                        "T", [0, 1] + Client.string("a") + [UInt8](repeating: 0, count: 18))
                    client.send("D", [0, 1, 0x7f, 0xff, 0xff, 0xff, 65])
                }))
        // An ErrorResponse whose field has no terminating NUL, and an unknown message type.
        #expect(Self.isViolation(try Self.queryError { $0.send("E", Array("CXX000".utf8)) }))
        #expect(Self.isViolation(try Self.queryError { $0.send("?", []) }))
        // A ReadyForQuery with an unknown status.
        #expect(Self.isViolation(try Self.queryError { $0.send("Z", Array("Q".utf8)) }))
    }

    /// A server that does not know the password cannot fake SCRAM's last step: its signature
    /// is checked, and the login refused.
    @Test func forgedSCRAMSignatureIsRefused() throws {
        let error = try Self.connectError { client in
            client.send("R", Client.int32(10) + Client.string("SCRAM-SHA-256") + [0])
            let first = try client.readMessage()
            let text = String(decoding: first.body, as: UTF8.self)
            let nonce = try #require(text.range(of: "r=")).upperBound
            let clientNonce = String(text[nonce...])
            let serverFirst = "r=\(clientNonce)SERVER,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"
            client.send("R", Client.int32(11) + Array(serverFirst.utf8))
            _ = try client.readMessage()
            client.send(
                "R", Client.int32(12) + Array("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=".utf8)
            )
            client.acceptLogin()
        }
        guard case .authentication(let reason) = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(reason.contains("could not prove"))
        #expect(!reason.contains("pencil"))
    }

    /// AuthenticationOk in the middle of SCRAM (a server skipping the proof) is refused.
    @Test func loginWithoutFinishingSCRAMIsRefused() throws {
        let error = try Self.connectError { client in
            client.send("R", Client.int32(10) + Client.string("SCRAM-SHA-256") + [0])
            _ = try client.readMessage()
            client.acceptLogin()
        }
        guard case .authentication = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
    }

    /// With `require_auth=scram-sha-256`, a server asking for the clear-text password gets
    /// nothing: the client closes without sending it.
    @Test func passwordIsNotSentToAServerTheConfigurationRefuses() throws {
        let received = Mutex<[UInt8]?>(nil)
        let error = try Self.connectError(
            configure: { $0.allowedAuthentication = [.scramSHA256] },
            script: { client in
                client.send("R", Client.int32(3))
                let answer = try? client.readMessage()
                received.withLock { $0 = answer.map { Array($0.type.utf8) + $0.body } }
            })
        guard case .authentication = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        let sent = received.withLock { $0 } ?? []
        #expect(!String(decoding: sent, as: UTF8.self).contains("pencil"), "the password was sent")
    }

    /// A server that says nothing: the connect timeout ends the wait.
    @Test func silentServerTimesOut() throws {
        let error = try Self.connectError(
            configure: { $0.connectTimeout = .milliseconds(300) },
            script: { client in client.drain(seconds: 1) })  // until the client gives up
        #expect(error == .timedOut(operation: "a request", seconds: 0.3))
    }

    /// Seeded random messages after the login: every one is answered by a typed error or a
    /// result, never a crash or a hang. The seed is printed (`LOGBOOK_SEED` replays it).
    @Test func randomMessagesGiveTypedErrors() throws {
        let seed = testSeed("randomMessagesGiveTypedErrors")
        var rng = SeededGenerator(seed: seed)
        let types = Array("RSKZTDCEINA123nstGHdcv?".utf8)
        for round in 0..<40 {
            var messages: [UInt8] = []
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                let type = types.randomElement(using: &rng)!
                var body = (0..<Int.random(in: 0...24, using: &rng)).map { _ in
                    UInt8.random(in: 0...255, using: &rng)
                }
                if Bool.random(using: &rng) { body = Array("CXX000\0Mboom\0\0".utf8) + body }
                let claimed =
                    Bool.random(using: &rng) ? body.count + 4 : Int.random(in: 0...64, using: &rng)
                messages += [type] + Client.int32(Int32(claimed)) + body
            }
            let script = messages
            let server = try FakePostgreSQLServer { client in
                client.acceptLogin()
                _ = try client.readMessage()
                client.send(script)
            }
            defer { server.finish() }
            var configuration = server.configuration
            configuration.responseTimeout = .milliseconds(500)
            let connection = try PostgreSQLConnection.connect(configuration)
            do {
                try connection.simpleQuery("SELECT 1")
            } catch let error as LogbookError {
                #expect(error.postgreSQL != nil, "seed \(seed), round \(round): \(error)")
            } catch {
                Issue.record("seed \(seed), round \(round): untyped \(error)")
            }
        }
    }
}
