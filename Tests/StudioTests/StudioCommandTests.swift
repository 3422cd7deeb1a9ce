import Foundation
import LogStore
import Logbook
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `logbook studio` as a program: the URL it prints, where it listens and where it refuses to,
/// and how it stops.
@Suite struct StudioCommandTests {
    /// A `logbook studio` child process, its output in files.
    final class Child {
        let process: SpawnedProcess
        let output: String
        let errors: String

        init(
            _ arguments: [String], in directory: TemporaryDirectory,
            environment: [String] = ["SWIFT_BACKTRACE=enable=no", "PATH=/usr/bin:/bin"]
        ) throws {
            let tool = try #require(StudioLiveTests.tool, "logbook is not built")
            output = directory.child("studio-\(UUID().uuidString).out")
            errors = output + ".err"
            process = try SpawnedProcess(
                tool, ["studio"] + arguments, stdout: output, stderr: errors,
                environment: environment)
        }

        /// The URL it printed, once it has (`nil` if it exited first or took over 20 s).
        func url() -> String? {
            let deadline = ContinuousClock.now + .seconds(20)
            while ContinuousClock.now < deadline {
                let text = String(decoding: readFile(output), as: UTF8.self)
                if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("http://") })
                {
                    return String(line)
                }
                if !process.isRunning { return nil }
                usleep(20_000)
            }
            return nil
        }

        var port: UInt16? {
            url().flatMap { $0.split(separator: ":").last?.split(separator: "/").first }.flatMap {
                UInt16($0)
            }
        }

        var token: String? { url()?.components(separatedBy: "token=").last }

        var stderr: String { String(decoding: readFile(errors), as: UTF8.self) }

        /// Waits for it to exit (up to `seconds`); its status, or `nil` if it still runs.
        func exitStatus(within seconds: Int = 20) -> Int32? { process.exitStatus(within: seconds) }

        /// Sends SIGTERM and waits; the exit status.
        func stop() -> Int32? {
            process.signal(SIGTERM)
            return exitStatus(within: 10)
        }
    }

    @Test func printsALoopbackURLWithATokenAndServesUntilSIGTERM() throws {
        let fixture = try StudioFixture.demo()
        defer { fixture.remove() }
        let studio = try Child([fixture.path], in: fixture.directory)
        let url = try #require(studio.url())
        #expect(
            url.range(
                of: #"^http://127\.0\.0\.1:[0-9]+/\?token=[0-9a-f]{32}$"#,
                options: .regularExpression) != nil)
        let port = try #require(studio.port)
        let token = try #require(studio.token)
        #expect(try request(port: port, "/?token=\(token)").status == 200)
        #expect(try request(port: port, "/").status == 403)
        #expect(String(decoding: readFile(studio.output), as: UTF8.self).contains("read-only"))
        if let v6 = try? TestConnection(port: port, host: "::1") {
            v6.send(
                "GET /?token=\(token) HTTP/1.1\r\nHost: [::1]:\(port)\r\nConnection: close\r\n\r\n")
            #expect(try v6.readResponse().status == 200)
        }
        let start = ContinuousClock.now
        #expect(studio.stop() == 0)
        #expect(ContinuousClock.now - start < .seconds(5))
    }

    @Test func twoStudiosGetDifferentTokens() throws {
        let fixture = try StudioFixture.demo()
        defer { fixture.remove() }
        let a = try Child([fixture.path], in: fixture.directory)
        let b = try Child([fixture.path], in: fixture.directory)
        let (tokenA, tokenB) = (try #require(a.token), try #require(b.token))
        #expect(tokenA != tokenB)
        #expect(try request(port: try #require(b.port), "/?token=\(tokenA)").status == 403)
        _ = (a.stop(), b.stop())
    }

    @Test func aPortInUseIsRefused() throws {
        let fixture = try StudioFixture.demo()
        defer { fixture.remove() }
        let first = try Child([fixture.path], in: fixture.directory)
        let port = try #require(first.port)
        let second = try Child([fixture.path, "--port", String(port)], in: fixture.directory)
        #expect(second.exitStatus() == 1)
        #expect(second.stderr.contains("cannot listen on 127.0.0.1:\(port)"))
        #expect(first.stop() == 0)
    }

    @Test func listenTakesAnIPAddressNeverAName() throws {
        let fixture = try StudioFixture.demo()
        defer { fixture.remove() }
        for address in ["localhost", "example.com", "999.1.1.1", "127.0.0.1:80", ""] {
            let studio = try Child([fixture.path, "--listen", address], in: fixture.directory)
            #expect(studio.exitStatus() == 2, "--listen \(address)")
            #expect(studio.stderr.contains("--listen takes an IP address"))
        }
        let port = try Child([fixture.path, "--port", "70000"], in: fixture.directory)
        #expect(port.exitStatus() == 2)
    }

    @Test func listeningBeyondLoopbackWarnsAndStillNeedsTheTokenAndHost() throws {
        let fixture = try StudioFixture.demo()
        defer { fixture.remove() }
        let studio = try Child([fixture.path, "--listen", "0.0.0.0"], in: fixture.directory)
        let port = try #require(studio.port)
        let token = try #require(studio.token)
        #expect(studio.stderr.contains("warning: listening on 0.0.0.0, not loopback"))
        #expect(try request(port: port, "/").status == 403)
        #expect(try request(port: port, "/?token=\(token)").status == 200)
        #expect(
            try request(port: port, "/?token=\(token)", host: "evil.example:\(port)").status == 403)
        #expect(
            try request(port: port, "/?token=\(token)", host: "192.0.2.7:\(port)").status == 200)
        #expect(studio.stop() == 0)
    }

    @Test func byDefaultOnlyLoopbackAddressesAreBound() throws {
        let fixture = try StudioFixture.demo()
        defer { fixture.remove() }
        let studio = try Child([fixture.path], in: fixture.directory)
        let port = try #require(studio.port)
        for address in Self.nonLoopbackIPv4Addresses() {
            #expect(throws: TestClientError.self, "\(address)") {
                _ = try TestConnection(port: port, host: address)
            }
        }
        #expect(studio.stop() == 0)
    }

    @Test func aPathThatIsNoStoreIsAClearError() throws {
        let directory = TemporaryDirectory("studio-nostore")
        defer { directory.remove() }
        let studio = try Child([directory.child("missing")], in: directory)
        #expect(studio.exitStatus() == 2)
        #expect(studio.stderr.contains("no store at"))
    }

    @Test func writingNeedsTheWriterLock() throws {
        let fixture = try StudioFixture.demo()
        defer { fixture.remove() }
        let writer = try fixture.open()
        defer { try? writer.close() }
        let studio = try Child([fixture.path, "--write"], in: fixture.directory)
        #expect(studio.exitStatus() == 1)
        #expect(studio.stderr.contains("open for writing by another process"))
        // Read-only, it serves while the other process writes.
        let reader = try Child([fixture.path], in: fixture.directory)
        #expect(reader.port != nil)
        #expect(reader.stop() == 0)
    }

    @Test func aSaveOfThisProcessReachesTheStudioChild() throws {
        let fixture = try StudioFixture.demo()
        defer { fixture.remove() }
        let studio = try Child([fixture.path], in: fixture.directory)
        let port = try #require(studio.port)
        let token = try #require(studio.token)
        let events = try TestConnection(port: port)
        events.send("GET /events?token=\(token) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
        #expect(try events.readResponse(head: true).status == 200)
        _ = try events.chunk(try #require(try events.nextChunkSize()))
        let container = try fixture.open()
        let context = ModelContext(container)
        context.insert(Employee(name: "From the test", designation: "x"))
        try context.save()
        let event = try #require(try StudioLiveTests.nextSave(events))
        #expect(event.contains(#""inserted":1"#))
        try container.close()
        #expect(studio.stop() == 0)
    }

    @Test func helpListsTheStudio() throws {
        let tool = try #require(StudioLiveTests.tool)
        let process = Process()
        let output = TemporaryDirectory("studio-help")
        defer { output.remove() }
        _ = FileManager.default.createFile(atPath: output.child("out"), contents: nil)
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = ["help", "studio"]
        process.standardOutput = FileHandle(forWritingAtPath: output.child("out"))
        try process.run()
        process.waitUntilExit()
        let text = String(decoding: readFile(output.child("out")), as: UTF8.self)
        #expect(text.contains("usage: logbook studio PATH"))
        #expect(text.contains("--write"))
    }

    /// The machine's IPv4 addresses other than loopback.
    static func nonLoopbackIPv4Addresses() -> [String] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return [] }
        defer { freeifaddrs(list) }
        var addresses: [String] = []
        var entry = list
        while let current = entry {
            defer { entry = current.pointee.ifa_next }
            guard let address = current.pointee.ifa_addr,
                address.pointee.sa_family == sa_family_t(AF_INET)
            else { continue }
            var text = [CChar](repeating: 0, count: 64)
            address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                var inAddress = $0.pointee.sin_addr
                _ = inet_ntop(AF_INET, &inAddress, &text, 64)
            }
            let string = String(
                decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if !string.hasPrefix("127.") { addresses.append(string) }
        }
        return addresses
    }
}
