import Foundation
import TestSupport
import Testing

@testable import logbook

/// The refusals: no token, another host, paths that try to climb out, requests too large or too
/// slow; and the escaping of every value a hostile store can hold.
@Suite final class StudioSecurityTests {
    let fixture: StudioFixture
    let studio: RunningStudio

    init() throws {
        fixture = try StudioFixture.demo()
        var http = HTTPServerConfiguration.testing
        http.maximumConnections = 8
        studio = try fixture.start(http: http)
    }

    deinit {
        studio.stop()
        fixture.remove()
    }

    static let routes = [
        "/", "/schema", "/schema.svg", "/entity", "/entity/Employee", "/entity/Employee/1",
        "/entity/Employee/export.csv", "/entity/Employee/export.jsonl", "/history", "/history/2",
        "/log", "/events", "/assets/studio.css", "/assets/studio.js", "/nowhere",
    ]

    @Test func everyRouteRefusesARequestWithoutTheToken() throws {
        let wrong = "ffffffffffffffffffffffffffffffff"
        for route in Self.routes {
            for headers in [
                [:], ["Cookie": "logbook_studio_\(studio.port)=\(wrong)"],
                ["X-Logbook-Token": wrong], ["Cookie": "logbook_studio_1=\(RunningStudio.token)"],
                ["Cookie": "logbook_studio_\(studio.port)=\(RunningStudio.token.prefix(31))"],
            ] {
                let response = try request(port: studio.port, route, headers: headers)
                #expect(response.status == 403, "\(route) \(headers)")
                #expect(response.text == "Forbidden\n")
                #expect(response.header("set-cookie") == nil)
            }
            let wrongQuery = try request(port: studio.port, route + "?token=" + wrong)
            #expect(wrongQuery.status == 403)
        }
    }

    @Test func theTokenInTheQuerySetsAStrictHttpOnlyCookie() throws {
        let first = try request(port: studio.port, "/?token=\(RunningStudio.token)")
        #expect(first.status == 200)
        #expect(
            first.header("set-cookie")
                == "logbook_studio_\(studio.port)=\(RunningStudio.token); Path=/; HttpOnly; SameSite=Strict"
        )
        #expect(try studio.get("/log").header("set-cookie") == nil)
        let header = try request(
            port: studio.port, "/log", headers: ["X-Logbook-Token": RunningStudio.token])
        #expect(header.status == 200)
    }

    @Test func aHostThatIsNotThisMachineIsRefused() throws {
        let port = studio.port
        for host in [
            "evil.example", "evil.example:\(port)", "127.0.0.1.nip.io:\(port)",
            "localhost.evil.example",
            "localhost:\(port + 1)", "10.0.0.1:\(port)", "[::2]:\(port)", "0x7f.0.0.1:\(port)",
            "2130706433:\(port)", "127.0.0.1:\(port)x", "", "[::1", "127.0.0.1:99999",
        ] {
            let response = try request(port: port, "/?token=\(RunningStudio.token)", host: host)
            #expect(response.status == 403, "Host: \(host)")
            #expect(response.text == "Forbidden\n")
        }
        for host in [
            "localhost:\(port)", "LOCALHOST:\(port)", "127.0.0.1", "[::1]:\(port)",
            "127.1.2.3:\(port)",
        ] {
            let response = try request(port: port, "/?token=\(RunningStudio.token)", host: host)
            #expect(response.status == 200, "Host: \(host)")
        }
        // No Host at all is not HTTP/1.1.
        let connection = try TestConnection(port: port)
        connection.send("GET /?token=\(RunningStudio.token) HTTP/1.1\r\n\r\n")
        #expect(try connection.readResponse().status == 400)
    }

    @Test func pathsThatClimbOutNeverReachAFile() throws {
        for target in [
            "/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/assets/..%2f..%2fetc%2fpasswd",
            "/assets/%2e%2e/%2e%2e/Package.swift", "/entity/..%2F..%2Fetc%2Fpasswd", "/./log",
            "//etc/passwd", "/assets/studio.css%00", "/assets/studio.css/..", "/etc/passwd",
            "/assets//etc/passwd", "/assets/%2fetc%2fpasswd", "/assets/....//....//etc/passwd",
            "/assets/..\\..\\etc\\passwd", "/schema.svg/../../../etc/passwd",
            "/%c0%ae%c0%ae/etc/passwd",
            "/entity/Employee/..%00/1", "/assets/Package.swift",
            "/assets/studio.js?../../etc/passwd",
        ] {
            let response = try studio.get(target)
            if target.hasPrefix("/assets/studio.js?") {
                #expect(response.status == 200)  // the query is not part of the path
                continue
            }
            #expect(
                response.status == 400 || response.status == 404, "\(target): \(response.status)")
            #expect(!response.text.contains("root:"))
            #expect(!response.text.contains("swift-tools-version"))
        }
    }

    @Test func aRequestLineTooLongIsRefused() throws {
        let response = try studio.get(
            "/entity/Employee?where=" + String(repeating: "a", count: 9000))
        #expect(response.status == 414)
    }

    @Test func headersTooLargeOrTooManyAreRefused() throws {
        let big = try studio.get("/", headers: ["X-Big": String(repeating: "b", count: 17_000)])
        #expect(big.status == 431)
        var many: [String: String] = [:]
        for i in 0..<70 { many["X-Field-\(i)"] = "1" }
        #expect(try studio.get("/", headers: many).status == 431)
    }

    @Test func aBodyTooLargeIsRefusedBeforeItIsRead() throws {
        let connection = try TestConnection(port: studio.port)
        connection.send(
            "POST /compact HTTP/1.1\r\nHost: 127.0.0.1:\(studio.port)\r\nContent-Length: 70000\r\n\r\n"
        )
        let response = try connection.readResponse()
        #expect(response.status == 413)
        #expect(response.header("connection") == "close")
    }

    @Test func malformedRequestsAreRefused() throws {
        let cases: [(String, Int)] = [
            ("GET / HTTP/2.0\r\nHost: x\r\n\r\n", 505),
            ("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n", 501),
            ("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400),
            ("GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\nx", 400),
            ("GET / HTTP/1.1\nHost: a\n\n", 400),
            ("GET http://evil.example/ HTTP/1.1\r\nHost: a\r\n\r\n", 400),
            ("\u{16}\u{03}\u{01}\u{02}\u{00}\u{01}\u{00}\u{01}\u{fc}\u{03}\u{03}", 400),
            ("GET / HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n", 400),
            ("GET /%zz HTTP/1.1\r\nHost: a\r\n\r\n", 400),
        ]
        for (bytes, status) in cases {
            let connection = try TestConnection(port: studio.port)
            connection.send(bytes)
            #expect(try connection.readResponse().status == status, "\(bytes.debugDescription)")
            #expect(connection.isClosedByServer())
        }
    }

    // The three tests below wait on the studio's timers on a thread of their own
    // (`onOwnThread`): the waits hold none of the few threads that run the other tests, and no
    // trip through those threads' queue, which can take seconds while they are busy, delays
    // the clock readings.

    @Test func aSlowClientIsCutOffAndOthersAreServedMeanwhile() async throws {
        let (port, cookie) = (studio.port, studio.cookie)
        let (others, status, closedAfter) = try await onOwnThread {
            let slow = try TestConnection(port: port)
            let start = ContinuousClock.now
            // One byte every 200 ms: the head would take far longer than the 2 s limit.
            let partial =
                "GET / HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nX-Slow: "
                + String(repeating: "s", count: 100)
            var others: [Int] = []
            for byte in partial.utf8 {
                slow.send([byte])
                others.append(try request(port: port, "/log", headers: cookie).status)
                if ContinuousClock.now - start > .seconds(4) { break }
                usleep(200_000)
            }
            let response = try? slow.readResponse()
            return (others, response?.status, ContinuousClock.now - start)
        }
        #expect(!others.isEmpty && others.allSatisfy { $0 == 200 }, "\(others)")
        #expect(status == 408)
        #expect(closedAfter < .seconds(6))
    }

    @Test func anIdleConnectionIsClosed() async throws {
        let port = studio.port
        let (closed, after) = try await onOwnThread {
            let idle = try TestConnection(port: port)
            let start = ContinuousClock.now
            let closed = idle.isClosedByServer()
            return (closed, ContinuousClock.now - start)
        }
        #expect(closed)
        #expect(after < .seconds(5))
    }

    @Test func connectionsBeyondTheLimitAreTurnedAwayUntilOthersEnd() async throws {
        let port = studio.port
        let refused = try await onOwnThread {
            let held = try (0..<8).map { _ in try TestConnection(port: port) }
            usleep(100_000)
            let refused = try TestConnection(port: port).readResponse().status
            _ = held.map { $0.isClosedByServer() }  // they time out
            usleep(100_000)
            return refused
        }
        #expect(refused == 503)
        #expect(try studio.get("/").status == 200)
    }

    @Test func storeValuesAreEscapedOnEveryPage() throws {
        let escapedScript = "&lt;script&gt;alert(1)&lt;/script&gt;"
        for target in [
            "/entity/Employee", "/entity/Employee/7", "/entity/Employee/8", "/entity/Company",
            "/entity/Company/2", "/entity/StaffedEmployee/3", "/history/2", "/history/3",
            "/entity/Employee?sort=name", "/entity/Employee?where=name+%3D%3D+%27%3Cscript%3E%27",
        ] {
            let page = try studio.get(target).text
            #expect(!page.contains(StudioFixture.script), "\(target)")
            #expect(!page.contains(StudioFixture.attributeBreak), "\(target)")
            #expect(!page.contains("<script>"), "\(target)")
            #expect(!page.contains("<img"), "\(target)")
        }
        #expect(try studio.get("/entity/Employee/7").text.contains(escapedScript))
        #expect(try studio.get("/entity/Company/2").text.contains(escapedScript))
        #expect(
            try studio.get("/entity/Employee/8").text.contains(
                "&quot;&gt;&lt;img src=x onerror=alert(2)&gt;"))
        let filter = try studio.get("/entity/Employee?where=name+%3D%3D+%27%22%3E%3Cb%3E%27").text
        #expect(filter.contains("value=\"name == &#39;&quot;&gt;&lt;b&gt;&#39;\""))
    }

    @Test func theOnlyScriptIsTheServersOwn() throws {
        let page = try studio.get("/entity/Employee").text
        #expect(page.components(separatedBy: "<script").count == 2)
        #expect(page.contains("<script src=\"/assets/studio.js\" defer></script>"))
        #expect(!page.contains("http://") && !page.contains("https://"))  // nothing to fetch
    }
}
