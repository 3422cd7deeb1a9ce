import Foundation
import TestSupport
import Testing

@testable import logbook

/// The request parser: one test per anomaly it refuses, what it accepts, and its invariants on
/// hostile input (seeded random and mutated requests; ``fuzzHTTPRequest(_:)``).
@Suite struct HTTPRequestParserTests {
    private func parse(_ text: String, limits: HTTPLimits = HTTPLimits()) -> HTTPParseResult {
        HTTPRequestParser.parse(Array(text.utf8), limits: limits)
    }

    private func status(_ text: String, limits: HTTPLimits = HTTPLimits()) -> Int? {
        if case .invalid(let error) = parse(text, limits: limits) { return error.status }
        return nil
    }

    private func request(_ text: String) throws -> (HTTPRequest, Int) {
        guard case .request(let request, let consumed) = parse(text) else {
            Issue.record("not a request: \(parse(text))")
            throw HTTPParseError(status: 0, reason: "")
        }
        return (request, consumed)
    }

    @Test func aGetWithQueryAndHeaders() throws {
        let text =
            "GET /entity/Em%20ployee/12?where=salary+%3E+5&sort=name&flag HTTP/1.1\r\n"
            + "Host: 127.0.0.1:8080\r\nX-Thing:   spaced value \t\r\nCookie: a=b\r\n\r\n"
        let (request, consumed) = try request(text)
        #expect(consumed == text.utf8.count)
        #expect(request.method == "GET")
        #expect(request.pathSegments == ["entity", "Em ployee", "12"])
        #expect(request.query.map(\.name) == ["where", "sort", "flag"])
        #expect(request.queryValue("where") == "salary > 5")
        #expect(request.queryValue("flag") == "")
        #expect(request.header("host") == "127.0.0.1:8080")
        #expect(request.header("x-thing") == "spaced value")
        #expect(request.minorVersion == 1)
        #expect(request.keepsAlive)
    }

    @Test func aPostWithItsBodyAndThePipelinedNextRequest() throws {
        let first = "POST /a HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello"
        let (request, consumed) = try request(first + "GET /b HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(consumed == first.utf8.count)
        #expect(request.body == Array("hello".utf8))
        #expect(request.formFields.isEmpty == false)
    }

    @Test func everyPrefixOfARequestIsIncomplete() {
        let text = "POST /x?a=1 HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc"
        let bytes = Array(text.utf8)
        for cut in 0..<bytes.count {
            #expect(HTTPRequestParser.parse(Array(bytes[..<cut])) == .incomplete, "cut \(cut)")
        }
    }

    @Test func emptyLinesBeforeTheRequestLineAreSkipped() throws {
        let (request, _) = try request("\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(request.pathSegments == [])
    }

    @Test func http10NeedsNoHostAndClosesByDefault() throws {
        let (request, _) = try request("GET / HTTP/1.0\r\n\r\n")
        #expect(!request.keepsAlive)
        #expect(status("GET / HTTP/1.1\r\n\r\n") == 400)  // 1.1 needs Host
    }

    @Test func aRequestLineTooLongIs414EvenUnfinished() {
        var limits = HTTPLimits()
        limits.requestLine = 100
        #expect(status("GET /" + String(repeating: "a", count: 200), limits: limits) == 414)
        #expect(
            status(
                "GET /" + String(repeating: "a", count: 200) + " HTTP/1.1\r\nHost: h\r\n\r\n",
                limits: limits) == 414)
    }

    @Test func aHeadTooLargeIs431EvenUnfinished() {
        var limits = HTTPLimits()
        limits.head = 200
        #expect(
            status("GET / HTTP/1.1\r\nX: " + String(repeating: "v", count: 300), limits: limits)
                == 431)
        limits = HTTPLimits()
        limits.headerFields = 3
        #expect(
            status("GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n\r\n", limits: limits) == 431)
    }

    @Test func aBodyTooLargeIs413BeforeItArrives() {
        #expect(status("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 65537\r\n\r\n") == 413)
    }

    @Test func bareLineFeedsAndLoneCarriageReturnsAre400() {
        #expect(status("GET / HTTP/1.1\nHost: h\n\n") == 400)
        #expect(status("GET / HTTP/1.1\r\nHost: h\n\r\n") == 400)
        #expect(status("GET / HTTP/1.1\r\nHost: h\rX: y\r\n\r\n") == 400)
        #expect(status("GET /\r HTTP/1.1\r\n") == 400)
    }

    @Test func obsoleteLineFoldingIs400() {
        #expect(status("GET / HTTP/1.1\r\nHost: h\r\nX: a\r\n  b\r\n\r\n") == 400)
    }

    @Test func whitespaceBeforeAFieldsColonIs400() {
        #expect(status("GET / HTTP/1.1\r\nHost : h\r\n\r\n") == 400)
        #expect(status("GET / HTTP/1.1\r\n: h\r\n\r\n") == 400)
    }

    @Test func controlCharactersInAValueAre400() {
        #expect(status("GET / HTTP/1.1\r\nHost: h\u{0}x\r\n\r\n") == 400)
        #expect(status("GET / HTTP/1.1\r\nHost: h\u{7F}\r\n\r\n") == 400)
    }

    @Test func twoHostsOrTwoLengthsAre400() {
        #expect(status("GET / HTTP/1.1\r\nHost: a\r\nHost: a\r\n\r\n") == 400)
        #expect(
            status("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\nx")
                == 400)
    }

    @Test func aLengthThatIsNotDigitsIs400() {
        for length in ["-1", "+1", "1 1", "0x10", "", "99999999999999999999"] {
            #expect(
                status("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: \(length)\r\n\r\n") == 400,
                "\(length)")
        }
    }

    @Test func transferCodingsAre501() {
        #expect(
            status("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
                == 501)
        #expect(
            status(
                "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n"
            ) == 501)
    }

    @Test func otherVersionsAre505AndGarbageIs400() {
        #expect(status("GET / HTTP/2.0\r\nHost: a\r\n\r\n") == 505)
        #expect(status("GET / HTTP/1.2\r\nHost: a\r\n\r\n") == 505)
        #expect(status("GET / FTP/1.1\r\nHost: a\r\n\r\n") == 400)
        #expect(status("GET /  HTTP/1.1\r\nHost: a\r\n\r\n") == 400)
        #expect(status("G(T / HTTP/1.1\r\n") == 400)
        #expect(status("\u{16}\u{03}\u{01}") == 400)
    }

    @Test func onlyOriginFormTargets() {
        #expect(status("GET http://a/ HTTP/1.1\r\nHost: a\r\n\r\n") == 400)
        #expect(status("OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n") == 400)
        #expect(status("GET /a#b HTTP/1.1\r\nHost: a\r\n\r\n") == 400)
        #expect(status("GET /\u{e9} HTTP/1.1\r\nHost: a\r\n\r\n") == 400)
    }

    @Test func dotSegmentsAndBadEscapesAre400() {
        for target in [
            "/..", "/a/../b", "/%2e%2e/x", "/%2E/x", "/./x", "/%zz", "/%4", "/%00", "/%0a",
            "/%c0%ae",
        ] {
            #expect(status("GET \(target) HTTP/1.1\r\nHost: a\r\n\r\n") == 400, "\(target)")
        }
        #expect(status("GET /?a=%ff HTTP/1.1\r\nHost: a\r\n\r\n") == 400)
    }

    @Test func anEncodedSlashStaysInsideItsSegment() throws {
        let (request, _) = try request("GET /assets/..%2f..%2fetc HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(request.pathSegments == ["assets", "../../etc"])
    }

    @Test func tooManyParametersAre400() {
        let query = (0..<70).map { "p\($0)=1" }.joined(separator: "&")
        #expect(status("GET /?\(query) HTTP/1.1\r\nHost: a\r\n\r\n") == 400)
    }

    @Test func percentEncodingRoundTrips() {
        for text in ["", "a b", "ä/€?&=+%", "\u{1F600}", "salary > 5 AND name == 'x'"] {
            let encoded = PercentDecoding.encode(text)
            #expect(encoded.utf8.allSatisfy { $0 < 0x80 && $0 > 0x20 })
            #expect(PercentDecoding.decode(Array(encoded.utf8)[...], plusIsSpace: false) == text)
        }
    }

    // MARK: Properties on hostile input

    @Test func randomBytesKeepEveryInvariant() {
        var rng = SeededGenerator(seed: testSeed("randomBytesKeepEveryInvariant"))
        for round in 0..<3000 {
            let count = Int.random(in: 0..<400, using: &rng)
            let alphabet = Array("GET /?=&%2e: \r\nHost1.\t".utf8) + [0, 0x7F, 0xC0, 0xFF]
            let bytes = (0..<count).map { _ in
                Bool.random(using: &rng)
                    ? alphabet.randomElement(using: &rng)! : UInt8.random(in: 0...255, using: &rng)
            }
            let problems = fuzzHTTPRequest(bytes)
            #expect(problems.isEmpty, "round \(round): \(problems) for \(bytes)")
            if !problems.isEmpty { return }
        }
    }

    @Test func theFuzzCorpusKeepsEveryInvariant() throws {
        // Tests/StudioTests/HTTPRequestParserTests.swift → Tests/Fuzz/corpus/http.
        let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fuzz/corpus/http")
        let names = try FileManager.default.contentsOfDirectory(atPath: corpus.path)
        #expect(names.count >= 5)
        for name in names {
            let bytes = readFile(corpus.appendingPathComponent(name).path)
            #expect(fuzzHTTPRequest(bytes).isEmpty, "\(name)")
        }
    }

    @Test func mutatedRequestsKeepEveryInvariant() {
        var rng = SeededGenerator(seed: testSeed("mutatedRequestsKeepEveryInvariant"))
        var accepted = 0
        for round in 0..<4000 {
            var bytes = Array(Self.randomRequest(&rng).utf8)
            // Half of them as made, half changed in one to three places.
            for _ in 0..<(Bool.random(using: &rng) ? 0 : Int.random(in: 1..<4, using: &rng)) {
                Self.mutate(&bytes, &rng)
            }
            let problems = fuzzHTTPRequest(bytes)
            #expect(
                problems.isEmpty,
                "round \(round): \(problems) for \(String(decoding: bytes, as: UTF8.self).debugDescription)"
            )
            if !problems.isEmpty { return }
            var small = HTTPLimits()
            small.requestLine = 64
            small.head = 160
            small.headerFields = 6
            small.body = 48
            small.parameters = 5
            if case .request = HTTPRequestParser.parse(bytes, limits: small) { accepted += 1 }
        }
        // The generator must reach the accepting paths, not only refusals.
        #expect(accepted > 400, "accepted \(accepted)")
    }

    /// A request from plausible pieces, each now and then a hostile one.
    static func randomRequest(_ rng: inout SeededGenerator) -> String {
        func pick(_ good: [String], _ bad: [String]) -> String {
            Int.random(in: 0..<8, using: &rng) == 0
                ? bad.randomElement(using: &rng)! : good.randomElement(using: &rng)!
        }
        let method = pick(["GET", "POST", "HEAD"], ["G E T", "", "get(", "X-Custom!"])
        let path =
            "/"
            + (0..<Int.random(in: 0..<4, using: &rng)).map { _ in
                pick(
                    ["entity", "Employee", "12", "a%2fb", "%e2%82%ac", "x+y"],
                    ["%2e%2e", "..", ".", "%zz", "%00", ""])
            }.joined(separator: "/")
        let query =
            Bool.random(using: &rng)
            ? "?"
                + (0..<Int.random(in: 0..<6, using: &rng)).map { _ in
                    pick(
                        ["where=a+%3D%3D+1", "sort=name", "token=abc", "x", "b=%41%42"],
                        ["a=%", "=%G1"])
                }.joined(separator: "&") : ""
        let version = pick(["HTTP/1.1", "HTTP/1.0"], ["HTTP/2", "http/1.1", "HTTP/1.1 "])
        var text = "\(method) \(path)\(query) \(version)\r\n"
        let body = String(repeating: "b", count: Int.random(in: 0..<60, using: &rng))
        var fields = [pick(["Host: 127.0.0.1:1", "Host: a"], ["Host : a", "Host: a\r\nHost: b"])]
        if !body.isEmpty || Bool.random(using: &rng) {
            fields.append(
                pick(
                    ["Content-Length: \(body.utf8.count)"],
                    ["Content-Length: 3", "Content-Length: -1", "Transfer-Encoding: chunked"]))
        }
        for _ in 0..<Int.random(in: 0..<5, using: &rng) {
            fields.append(
                pick(
                    ["X-A:  padded  ", "Connection: close", "Cookie: a=b; c=d", "Accept: */*"],
                    [" folded", "Bad Name: x", "X-Long: " + String(repeating: "l", count: 90)]))
        }
        fields.shuffle(using: &rng)
        text += fields.map { $0 + "\r\n" }.joined()
        return text + "\r\n" + body
    }

    /// One random change: a byte flipped, inserted or removed, a cut, or a part repeated.
    static func mutate(_ bytes: inout [UInt8], _ rng: inout SeededGenerator) {
        guard !bytes.isEmpty else { return }
        let at = Int.random(in: 0..<bytes.count, using: &rng)
        let special: [UInt8] = [13, 10, 32, 0, 9, 0x25, 0x3A, 0x2F, 0x2E, 0xFF]
        switch Int.random(in: 0..<5, using: &rng) {
        case 0: bytes[at] = special.randomElement(using: &rng)!
        case 1: bytes.insert(special.randomElement(using: &rng)!, at: at)
        case 2: bytes.remove(at: at)
        case 3: bytes.removeSubrange(at...)
        default: bytes.insert(contentsOf: bytes[at..<min(bytes.count, at + 20)], at: at)
        }
    }
}
